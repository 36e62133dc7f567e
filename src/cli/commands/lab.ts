import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { stringify } from "yaml";
import { labClusterConfig } from "../../composition/lab-cluster-config.js";
import { AppError, ErrorCode, isAppError } from "../../core/errors.js";
import {
  buildLabPlugin,
  checkKafkaVersion,
  fetchExporterAgent,
  fetchKafkaJars,
  labCacheDir,
  SUPPORTED_KAFKA,
} from "../../lab/lab-jars.js";
import type { LabOptions } from "../../lab/lab-options.js";
import { checkLabTools } from "../../lab/lab-tools.js";
import { startLab } from "../../lab/start-lab.js";
import { type CliCommand, type CliIo, ExitCode } from "../command.js";

function fail(io: CliIo, name: string, e: unknown): number {
  if (!isAppError(e)) throw e;
  io.stderr.write(`connect-roll ${name}: ${e.message.split("\n").join("; ")}\n`);
  return e.code === "usage/invalid" ? ExitCode.Usage : ExitCode.Failed;
}

function int(name: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new AppError(
      ErrorCode.UsageInvalid,
      `--${name} needs a whole number from ${min} to ${max}, got "${String(value)}"`,
    );
  return n;
}

const EXAMPLE_VALUE: Readonly<Record<string, string>> = {
  "worker-version": "3.9.1",
  "exactly-once-support": "preparing",
};

/** `NAME=V` pairs of a repeatable flag. */
function pairs(flag: string, values: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of Array.isArray(values) ? values : values === undefined ? [] : [values]) {
    const m = /^(worker-\d+)=(.+)$/.exec(String(raw));
    if (!m?.[1] || !m[2])
      throw new AppError(
        ErrorCode.UsageInvalid,
        `--${flag} takes NAME=VALUE (e.g. worker-1=${EXAMPLE_VALUE[flag] ?? "eager"}), got "${String(raw)}"`,
      );
    out[m[1]] = m[2];
  }
  return out;
}

/** How this CLI is started again (node, its flags such as tsx's loader, the script). */
function selfArgv(): string[] {
  const script = process.argv[1];
  return [process.execPath, ...process.execArgv, ...(script === undefined ? [] : [resolve(script)])];
}

export const labCommand: CliCommand = {
  name: "lab",
  summary: "start a real Kafka Connect cluster on loopback (needs Java 17+ and Maven)",
  help: `Usage: connect-roll lab [--kafka V] [--broker-version V] [--workers N] [--worker-version NAME=V]…
                        [--connect-protocol NAME=P]… [--connectors N] [--sinks N] [--tasks-per-connector M]
                        [--throughput R] [--task-start-ms T] [--delay-ms D] [--session-timeout-ms S] [--port P] [--dir DIR] [--write-config FILE]
                        [--cluster-name NAME] [--exactly-once] [--exactly-once-support NAME=S]…
                        [--transaction-boundary poll|interval]

Starts one KRaft broker and N Kafka Connect distributed workers (one JVM each, with the Prometheus JMX exporter
and connect-roll's rules) on 127.0.0.1, creates verifiable source (and sink) connectors, waits until every task is
RUNNING, and prints the same JSON line as 'connect-roll sim'. It serves the simulator's control API in real time
(POST /sim/workers/NAME/stop|start|restart, POST /sim/tasks/CONNECTOR/N/stall|resume, GET /sim/state with a
data-flow ledger; /sim/advance answers 409).
Kafka's jars come from Maven's repository into CONNECT_ROLL_LAB_CACHE (default ~/.cache/connect-roll/lab).
Runs until interrupted; Ctrl-C or SIGTERM stops every JVM.

Options:
  --kafka V                  Kafka version of every worker (default 3.9.1; supported 3.6.x – 4.4.x)
  --broker-version V         broker version (default: the newest worker version)
  --workers N                workers (default 3)
  --worker-version NAME=V    one worker's version (repeatable), e.g. worker-1=3.9.1
  --connect-protocol NAME=P  one worker's connect.protocol: eager | compatible | sessioned (repeatable)
  --connectors N             source connectors (default 2)
  --sinks N                  verifiable sink connectors reading every source topic (default 0)
  --tasks-per-connector M    tasks per connector (default 2)
  --throughput R             records per second per source task (default 10)
  --task-start-ms T          what a task's start costs, ms (it sleeps in start; default 0)
  --delay-ms D               scheduled.rebalance.max.delay.ms (default 30000)
  --session-timeout-ms S     session.timeout.ms (default 10000)
  --exactly-once             every worker exactly.once.source.support=enabled, the sources created with
                             exactly.once.support=required, the sinks reading isolation.level=read_committed
  --exactly-once-support NAME=S  one worker's exactly.once.source.support: disabled | preparing | enabled
                             (repeatable; the two-bounce enabling sequence)
  --transaction-boundary B   the sources' transaction.boundary under --exactly-once: poll (default) | interval (1 s)
  --port P                   control API port (default: any free port)
  --dir DIR                  working folder for logs and data (default: a new temporary folder)
  --write-config FILE        also write a connect-roll config for this cluster (executor: command)
  --cluster-name NAME        the cluster's name in that config (default lab)
  -h, --help                 show this help`,
  options: {
    kafka: { type: "string" },
    "broker-version": { type: "string" },
    workers: { type: "string" },
    "worker-version": { type: "string", multiple: true },
    "connect-protocol": { type: "string", multiple: true },
    connectors: { type: "string" },
    sinks: { type: "string" },
    "tasks-per-connector": { type: "string" },
    throughput: { type: "string" },
    "task-start-ms": { type: "string" },
    "delay-ms": { type: "string" },
    "session-timeout-ms": { type: "string" },
    port: { type: "string" },
    dir: { type: "string" },
    "write-config": { type: "string" },
    "cluster-name": { type: "string" },
    "exactly-once": { type: "boolean" },
    "exactly-once-support": { type: "string", multiple: true },
    "transaction-boundary": { type: "string" },
  },
  positionals: { min: 0, max: 0, names: [] },
  async run(values, _positionals, io) {
    let options: LabOptions;
    try {
      const protocols = pairs("connect-protocol", values["connect-protocol"]);
      for (const [name, p] of Object.entries(protocols))
        if (!["eager", "compatible", "sessioned"].includes(p))
          throw new AppError(
            ErrorCode.UsageInvalid,
            `--connect-protocol ${name}=${p}: use eager, compatible or sessioned`,
          );
      const eosSupport = pairs("exactly-once-support", values["exactly-once-support"]);
      for (const [name, v] of Object.entries(eosSupport))
        if (!["disabled", "preparing", "enabled"].includes(v))
          throw new AppError(
            ErrorCode.UsageInvalid,
            `--exactly-once-support ${name}=${v}: use disabled, preparing or enabled`,
          );
      const boundary = values["transaction-boundary"];
      if (boundary !== undefined && boundary !== "poll" && boundary !== "interval")
        throw new AppError(
          ErrorCode.UsageInvalid,
          `--transaction-boundary ${String(boundary)}: use poll or interval`,
        );
      const entries: [string, unknown][] = [
        ["exactlyOnce", values["exactly-once"] === true ? true : undefined],
        ["exactlyOnceSupport", eosSupport],
        ["transactionBoundary", boundary],
        ["kafka", values.kafka],
        ["brokerVersion", values["broker-version"]],
        ["workers", int("workers", values.workers, 1, 12)],
        ["workerVersions", pairs("worker-version", values["worker-version"])],
        ["connectProtocols", protocols],
        ["connectors", int("connectors", values.connectors, 0, 100)],
        ["sinks", int("sinks", values.sinks, 0, 20)],
        ["tasksPerConnector", int("tasks-per-connector", values["tasks-per-connector"], 1, 64)],
        ["throughput", int("throughput", values.throughput, 1, 1_000)],
        ["taskStartMs", int("task-start-ms", values["task-start-ms"], 0, 120_000)],
        ["delayMs", int("delay-ms", values["delay-ms"], 0, 3_600_000)],
        ["sessionTimeoutMs", int("session-timeout-ms", values["session-timeout-ms"], 1_000, 600_000)],
        ["controlPort", int("port", values.port, 0, 65_535)],
        ["dir", values.dir],
      ];
      options = Object.fromEntries(entries.filter(([, v]) => v !== undefined)) as LabOptions;
    } catch (e) {
      return fail(io, "lab", e);
    }
    let lab: Awaited<ReturnType<typeof startLab>>;
    try {
      lab = await startLab({
        ...options,
        env: io.env,
        onProgress: (line) => io.stderr.write(`lab: ${line}\n`),
      });
    } catch (e) {
      return fail(io, "lab", e);
    }
    try {
      const state = await lab.cluster.state();
      const writeConfig = values["write-config"];
      if (typeof writeConfig === "string") {
        const name = typeof values["cluster-name"] === "string" ? values["cluster-name"] : "lab";
        const cluster = labClusterConfig({
          workers: lab.workers,
          controlUrl: lab.controlUrl,
          delayMs: options.delayMs ?? 30_000,
          sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
          restartCommand: [...selfArgv(), "lab", "restart-worker", "--control", lab.controlUrl],
        });
        const header = `# Written by connect-roll lab for the real cluster at ${lab.controlUrl}.\n# Check: connect-roll config check --config ${writeConfig}\n`;
        await writeFile(writeConfig, header + stringify({ clusters: { [name]: cluster } }));
      }
      io.stdout.write(
        `${JSON.stringify({
          controlUrl: lab.controlUrl,
          virtualTime: false,
          leader: state.leader,
          brokerVersion: lab.brokerVersion,
          dir: lab.dir,
          workers: lab.workers.map((w) => ({
            ...w,
            version: state.workers.find((x) => x.name === w.name)?.version,
          })),
        })}\n`,
      );
      await new Promise<void>((done) => {
        if (io.signal.aborted) done();
        io.signal.addEventListener("abort", () => done(), { once: true });
      });
    } finally {
      await lab.close();
    }
    return ExitCode.Ok;
  },
};

export const labFetchCommand: CliCommand = {
  name: "lab fetch",
  summary: "pre-fetch the lab's Kafka jars (and the JMX exporter) into the cache",
  help: `Usage: connect-roll lab fetch --kafka V[,V…]

Lets Maven copy the broker and Connect jars of each version (and the JMX exporter agent) into the lab cache
(CONNECT_ROLL_LAB_CACHE, default ~/.cache/connect-roll/lab) and compiles the lab connector, so that
'connect-roll lab' starts without downloading.

Options:
  --kafka V[,V…]  versions (3.6.x – 4.4.x)
  -h, --help      show this help`,
  options: { kafka: { type: "string" } },
  positionals: { min: 0, max: 0, names: [] },
  async run(values, _positionals, io) {
    if (typeof values.kafka !== "string" || values.kafka.trim() === "") {
      io.stderr.write("connect-roll lab fetch: --kafka V[,V…] is required (e.g. --kafka 3.9.1,4.1.1)\n");
      return ExitCode.Usage;
    }
    const versions = values.kafka
      .split(",")
      .map((v) => v.trim().replace(/^v/, ""))
      .filter((v) => v !== "");
    try {
      for (const v of versions) checkKafkaVersion(v, "connect");
      const { javac } = await checkLabTools(io.env);
      const cacheDir = labCacheDir(io.env);
      for (const v of versions) {
        // Workers older than 3.6 run next to a 3.9 broker: there is no broker of theirs to fetch.
        if (SUPPORTED_KAFKA.test(v)) await fetchKafkaJars("broker", v, { cacheDir });
        const connect = await fetchKafkaJars("connect", v, { cacheDir });
        await buildLabPlugin(connect, { cacheDir, javac });
        io.stdout.write(`Kafka ${v}: broker and Connect jars in ${cacheDir}\n`);
      }
      io.stdout.write(`JMX exporter agent: ${await fetchExporterAgent({ cacheDir })}\n`);
      return ExitCode.Ok;
    } catch (e) {
      return fail(io, "lab fetch", e);
    }
  },
};
