import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { WorkerState } from "../sim/sim-types.js";
import { type JvmProcess, startJvm } from "./jvm-process.js";
import type { KafkaJars } from "./lab-jars.js";
import { loggingArgs, writeLoggingConfig } from "./lab-logging.js";
import type { SeenJoin } from "./lab-rebalances.js";

/** What a lab worker is started with; `version` and `connectProtocol` may change between starts. */
export interface WorkerSpec {
  readonly name: string;
  readonly host: string;
  readonly restPort: number;
  /**
   * The REST port the worker advertises (its id, and where the others forward requests to): a proxy in front of it
   * (a fault proxy), or null for `restPort`.
   */
  readonly advertisedPort: number | null;
  readonly metricsPort: number;
  readonly groupId: string;
  readonly bootstrap: string;
  readonly delayMs: number;
  readonly sessionTimeoutMs: number;
  readonly heartbeatMs: number;
  /** null: the version's default (sessioned). */
  readonly connectProtocol: string | null;
  /** The worker's `exactly.once.source.support`; null: not written (the version's default, disabled). */
  readonly exactlyOnceSourceSupport: ExactlyOnceSourceSetting | null;
}

/** The worker's id in the group and in task statuses: its advertised host and port. */
export function advertisedIdOf(spec: WorkerSpec): string {
  return `${spec.host}:${spec.advertisedPort ?? spec.restPort}`;
}

export type ExactlyOnceSourceSetting = "disabled" | "preparing" | "enabled";

/** One worker of the lab cluster: its spec, the settings of its next start, its current JVM and its last join. */
export interface LabWorker {
  readonly spec: WorkerSpec;
  version: string;
  connectProtocol: string | null;
  /** `exactly.once.source.support` of its next start (null: not set). */
  exactlyOnceSourceSupport: ExactlyOnceSourceSetting | null;
  state: WorkerState;
  jvm: JvmProcess | null;
  /** Set while the lab itself stops the worker: task stops then are not interruptions. */
  stopping: boolean;
  starts: number;
  lastJoin: SeenJoin | null;
  readonly url: string;
  readonly metricsUrl: string;
}

export interface WorkerStartInput {
  readonly java: string;
  readonly jars: KafkaJars;
  readonly pluginClasses: string;
  readonly exporterJar: string;
  readonly exporterRules: string;
  readonly dir: string;
  readonly onLog: (line: string, at: number) => void;
  readonly onStdout: (line: string, at: number) => void;
}

/** The worker.properties a lab worker starts with. */
export function workerProperties(spec: WorkerSpec): string {
  const lines = [
    `bootstrap.servers=${spec.bootstrap}`,
    `group.id=${spec.groupId}`,
    "key.converter=org.apache.kafka.connect.storage.StringConverter",
    "value.converter=org.apache.kafka.connect.storage.StringConverter",
    `config.storage.topic=${spec.groupId}-configs`,
    `offset.storage.topic=${spec.groupId}-offsets`,
    `status.storage.topic=${spec.groupId}-status`,
    "config.storage.replication.factor=1",
    "offset.storage.replication.factor=1",
    "status.storage.replication.factor=1",
    "offset.storage.partitions=5",
    "status.storage.partitions=3",
    `listeners=http://${spec.host}:${spec.restPort}`,
    `rest.advertised.host.name=${spec.host}`,
    `rest.advertised.port=${spec.advertisedPort ?? spec.restPort}`,
    `rest.advertised.listener=http`,
    "offset.flush.interval.ms=2000",
    `scheduled.rebalance.max.delay.ms=${spec.delayMs}`,
    `session.timeout.ms=${spec.sessionTimeoutMs}`,
    `heartbeat.interval.ms=${spec.heartbeatMs}`,
    // A stable client id without characters that JMX would quote.
    `client.id=connect-${spec.name}`,
    "task.shutdown.graceful.timeout.ms=5000",
    "topic.creation.enable=true",
    // Lets a connector set its clients' configs (the lab sink reads read_committed under exactly-once).
    "connector.client.config.override.policy=All",
  ];
  if (spec.exactlyOnceSourceSupport !== null)
    lines.push(`exactly.once.source.support=${spec.exactlyOnceSourceSupport}`);
  if (spec.connectProtocol !== null) lines.push(`connect.protocol=${spec.connectProtocol}`);
  return `${lines.join("\n")}\n`;
}

function jvmArgs(spec: WorkerSpec, input: WorkerStartInput, props: string, logConfig: string): string[] {
  return [
    "-Xms128m",
    "-Xmx384m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Djava.awt.headless=true",
    ...loggingArgs(input.jars.version, logConfig, input.dir),
    `-javaagent:${input.exporterJar}=${spec.host}:${spec.metricsPort}:${input.exporterRules}`,
    "-cp",
    `${input.jars.lib}/*:${input.pluginClasses}`,
    "org.apache.kafka.connect.cli.ConnectDistributed",
    props,
  ];
}

/** Starts one worker JVM (its REST port and exporter port are the spec's, stable across restarts). */
export async function startLabWorkerJvm(spec: WorkerSpec, input: WorkerStartInput): Promise<JvmProcess> {
  await mkdir(input.dir, { recursive: true });
  const props = join(input.dir, "worker.properties");
  await writeFile(props, workerProperties(spec));
  const logConfig = await writeLoggingConfig(input.dir, input.jars.version, "connect");
  return startJvm({
    java: input.java,
    args: jvmArgs(spec, input, props, logConfig),
    cwd: input.dir,
    logFile: join(input.dir, "worker.log"),
    onLog: input.onLog,
    onStdout: input.onStdout,
  });
}
