import { mkdir, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { AppError, ErrorCode } from "../core/errors.js";
import { type JvmProcess, startJvm } from "./jvm-process.js";
import type { KafkaJars } from "./lab-jars.js";
import { loggingArgs, writeLoggingConfig } from "./lab-logging.js";
import { runTool } from "./run-tool.js";

/** One KRaft broker+controller on loopback, formatted with its own version (RF 1, small heap). */
export interface LabBroker {
  readonly version: string;
  readonly bootstrap: string;
  readonly process: JvmProcess;
  stop(): Promise<void>;
}

export interface BrokerOptions {
  readonly java: string;
  readonly jars: KafkaJars;
  readonly dir: string;
  readonly port: number;
  readonly controllerPort: number;
  readonly host: string;
  readonly startTimeoutMs?: number;
}

function serverProperties(o: BrokerOptions, dataDir: string): string {
  return [
    "process.roles=broker,controller",
    "node.id=1",
    `controller.quorum.voters=1@${o.host}:${o.controllerPort}`,
    `listeners=PLAINTEXT://${o.host}:${o.port},CONTROLLER://${o.host}:${o.controllerPort}`,
    `advertised.listeners=PLAINTEXT://${o.host}:${o.port}`,
    "inter.broker.listener.name=PLAINTEXT",
    "controller.listener.names=CONTROLLER",
    "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
    `log.dirs=${dataDir}`,
    "num.partitions=1",
    "offsets.topic.replication.factor=1",
    "offsets.topic.num.partitions=3",
    "transaction.state.log.replication.factor=1",
    "transaction.state.log.min.isr=1",
    "share.coordinator.state.topic.replication.factor=1",
    "share.coordinator.state.topic.min.isr=1",
    "group.initial.rebalance.delay.ms=0",
    // Tests use short Connect session timeouts.
    "group.min.session.timeout.ms=1000",
    "auto.create.topics.enable=true",
    "",
  ].join("\n");
}

async function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(1_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export async function startLabBroker(o: BrokerOptions): Promise<LabBroker> {
  const dir = join(o.dir, "broker");
  const dataDir = join(dir, "data");
  await mkdir(dataDir, { recursive: true });
  const props = join(dir, "server.properties");
  await writeFile(props, serverProperties(o, dataDir));
  const logConfig = await writeLoggingConfig(dir, o.jars.version, "broker");
  const cp = ["-cp", `${o.jars.lib}/*`];
  const base = [
    "-Xms256m",
    "-Xmx512m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Djava.awt.headless=true",
  ];
  const logArgs = loggingArgs(o.jars.version, logConfig, dir);
  const id = await runTool(o.java, [...base, ...logArgs, ...cp, "kafka.tools.StorageTool", "random-uuid"], {
    timeoutMs: 60_000,
  });
  const clusterId = /[A-Za-z0-9_-]{22}/.exec(id.output)?.[0];
  if (id.code !== 0 || clusterId === undefined)
    throw new AppError(ErrorCode.Internal, `kafka-storage random-uuid failed: ${id.output.slice(0, 300)}`);
  const format = await runTool(
    o.java,
    [
      ...base,
      ...logArgs,
      ...cp,
      "kafka.tools.StorageTool",
      "format",
      "-t",
      clusterId,
      "-c",
      props,
      "--ignore-formatted",
    ],
    { timeoutMs: 60_000 },
  );
  if (format.code !== 0)
    throw new AppError(ErrorCode.Internal, `kafka-storage format failed: ${format.output.slice(0, 300)}`);
  let started = false;
  const jvm = startJvm({
    java: o.java,
    args: [...base, ...logArgs, ...cp, "kafka.Kafka", props],
    cwd: dir,
    logFile: join(dir, "broker.log"),
    onLog: (line) => {
      if (line.includes("Kafka Server started")) started = true;
    },
  });
  const deadline = Date.now() + (o.startTimeoutMs ?? 120_000);
  while (!(started && (await portOpen(o.host, o.port)))) {
    if (!jvm.isRunning())
      throw new AppError(
        ErrorCode.Internal,
        `the Kafka ${o.jars.version} broker exited at start; see ${dir}/broker.log`,
      );
    if (Date.now() > deadline) {
      await jvm.kill();
      throw new AppError(ErrorCode.Internal, `the Kafka broker did not start in time; see ${dir}/broker.log`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    version: o.jars.version,
    bootstrap: `${o.host}:${o.port}`,
    process: jvm,
    stop: () => jvm.stop(30_000),
  };
}
