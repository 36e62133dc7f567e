import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { ControlResult } from "../sim/control-result.js";
import type { StopMode } from "../sim/sim-types.js";
import type { KafkaJars } from "./lab-jars.js";
import { createLabLedger } from "./lab-ledger.js";
import { createLabRebalances } from "./lab-rebalances.js";
import {
  type LabConnectorKind,
  type LabExactlyOnce,
  labConnectorConfig,
  readStatuses,
  restCall,
} from "./lab-rest.js";
import { createLabSinkLedger } from "./lab-sink-ledger.js";
import { createLabStalls } from "./lab-stalls.js";
import { type LabConnector, type LabState, labState } from "./lab-state.js";
import {
  advertisedIdOf,
  type ExactlyOnceSourceSetting,
  type LabWorker,
  startLabWorkerJvm,
} from "./lab-worker.js";
import { parseLabEvent } from "./worker-log.js";

export interface LabClusterInput {
  readonly java: string;
  readonly dir: string;
  readonly workers: readonly LabWorker[];
  readonly jars: (version: string) => Promise<{ connect: KafkaJars; pluginClasses: string }>;
  readonly exporterJar: string;
  readonly exporterRules: string;
  readonly throughput: number;
  /** What a task's start costs (the lab connectors sleep that long in `start`). */
  readonly taskStartMs: number;
  /** A Kafka version on which the source tasks produce a tenth of `throughput`; null: none. */
  readonly slowOnVersion: string | null;
  /** Connectors created exactly-once (sources `required`, sinks read_committed); null: at-least-once. */
  readonly exactlyOnce: LabExactlyOnce | null;
  /** Logged lines of interest, for diagnostics (default: none). */
  readonly onLine?: (worker: string, line: string) => void;
}

/** The real cluster behind the control API: worker JVMs, their logs and the ledger, shaped like the simulator's. */
export interface LabCluster {
  readonly workers: readonly LabWorker[];
  startWorker(name: string, version?: string): Promise<ControlResult>;
  stopWorker(name: string, mode: StopMode): Promise<ControlResult>;
  restartWorker(
    name: string,
    options: { version?: string; downMs?: number; exactlyOnceSourceSupport?: ExactlyOnceSourceSetting },
  ): Promise<ControlResult>;
  createConnector(name: string, tasksMax: number, kind?: LabConnectorKind): Promise<ControlResult>;
  updateConnector(
    name: string,
    change: { tasksMax?: number; config?: Record<string, string> },
  ): Promise<ControlResult>;
  /** A task stays RUNNING and moves nothing for `ms` (null: until `resumeTask`), through a file it reads. */
  stallTask(connector: string, task: number, ms: number | null): Promise<ControlResult>;
  resumeTask(connector: string, task: number): Promise<ControlResult>;
  state(): Promise<LabState>;
  /** Every task of the source connectors created so far has had a record acknowledged (its topic exists). */
  sourcesProducing(): boolean;
  resetLedger(): void;
  close(): Promise<void>;
}

const GRACE_MS = 30_000;

export function createLabCluster(input: LabClusterInput): LabCluster {
  const ledger = createLabLedger();
  const sinks = createLabSinkLedger();
  const controlDir = join(input.dir, "control");
  const stalls = createLabStalls(controlDir);
  const rebalances = createLabRebalances();
  const connectors = new Map<string, LabConnector>();
  let closed = false;
  const byName = (name: string) => input.workers.find((w) => w.spec.name === name);
  // A join line names the leader by its advertised URL (the worker's own unless a proxy stands in front of it).
  const byUrl = (url: string | null) =>
    url === null
      ? undefined
      : input.workers.find((w) => url.replace(/\/$/, "") === `http://${advertisedIdOf(w.spec)}`);

  function onLog(worker: LabWorker, line: string, at: number): void {
    const seen = rebalances.observe(worker.spec.name, line, at);
    if (seen === null) return;
    input.onLine?.(worker.spec.name, line);
    worker.lastJoin = seen;
  }

  function onStdout(worker: LabWorker, line: string, at: number): void {
    const event = parseLabEvent(line);
    if (event === null) return;
    if (event.kind === "ack") ledger.recordAcked(event.task, event.ms);
    else if (event.kind === "put") {
      if (event.records.length > 0) ledger.recordAcked(event.task, event.ms);
      sinks.recordsPut(event.task.slice(0, event.task.lastIndexOf("/")), event.records, event.ms);
    } else if (event.kind === "start") ledger.taskStarted(event.task, worker.spec.name, at);
    else ledger.taskStopped(event.task, worker.spec.name, at, worker.stopping);
  }

  async function launch(w: LabWorker, version: string): Promise<void> {
    const { connect, pluginClasses } = await input.jars(version);
    w.version = version;
    w.state = "starting";
    w.starts += 1;
    w.lastJoin = null;
    const jvm = await startLabWorkerJvm(
      { ...w.spec, connectProtocol: w.connectProtocol, exactlyOnceSourceSupport: w.exactlyOnceSourceSupport },
      {
        java: input.java,
        jars: connect,
        pluginClasses,
        exporterJar: input.exporterJar,
        exporterRules: input.exporterRules,
        dir: join(input.dir, w.spec.name),
        onLog: (line, at) => onLog(w, line, at),
        onStdout: (line, at) => onStdout(w, line, at),
      },
    );
    w.jvm = jvm;
    void jvm.exited.then(() => {
      if (w.jvm !== jvm) return;
      ledger.workerGone(w.spec.name, Date.now());
      w.jvm = null;
      w.state = "stopped";
    });
    // "running" once its REST API answers (the simulator's worker-up).
    void (async () => {
      while (w.jvm === jvm && jvm.isRunning() && !closed) {
        const r = await restCall(`${w.url}/`, "GET", undefined, 2_000);
        if (r?.status === 200) {
          if (w.jvm === jvm) w.state = "running";
          return;
        }
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
  }

  async function halt(w: LabWorker, mode: StopMode): Promise<void> {
    const jvm = w.jvm;
    if (jvm === null) return;
    w.stopping = true;
    ledger.workerStopping(w.spec.name, Date.now(), byUrl(rebalances.latest()?.leaderUrl ?? null) === w);
    try {
      if (mode === "crash") await jvm.kill();
      else await jvm.stop(GRACE_MS);
    } finally {
      ledger.workerGone(w.spec.name, Date.now());
      w.stopping = false;
      if (w.jvm === jvm) {
        w.jvm = null;
        w.state = "stopped";
      }
    }
  }

  const notFound = (name: string): ControlResult => ({ kind: "not-found", message: `no worker ${name}` });
  const liveUrls = () => input.workers.filter((w) => w.state === "running").map((w) => w.url);

  async function putConnector(name: string, config: Record<string, string>): Promise<ControlResult> {
    for (const url of liveUrls()) {
      const r = await restCall(`${url}/connectors/${encodeURIComponent(name)}/config`, "PUT", config, 15_000);
      if (r !== null && r.status < 300) return { kind: "ok" };
      if (r !== null && r.status < 500 && r.status !== 409)
        return { kind: "invalid", message: `Connect answered ${r.status}: ${JSON.stringify(r.body)}` };
    }
    return { kind: "conflict", message: "no worker accepted the connector config (rebalancing or down)" };
  }

  return {
    workers: input.workers,
    async startWorker(name, version) {
      const w = byName(name);
      if (!w) return notFound(name);
      if (w.jvm !== null) return { kind: "conflict", message: `${name} is already ${w.state}` };
      await launch(w, version ?? w.version);
      return { kind: "ok" };
    },
    async stopWorker(name, mode) {
      const w = byName(name);
      if (!w) return notFound(name);
      if (w.jvm === null) return { kind: "conflict", message: `${name} is already stopped` };
      await halt(w, mode);
      return { kind: "ok" };
    },
    async restartWorker(name, options) {
      const w = byName(name);
      if (!w) return notFound(name);
      const version = options.version ?? w.version;
      // Fetch the jars first, so a new version's download is not counted as the worker's down time.
      await input.jars(version);
      await halt(w, "graceful");
      // An upgrade brings the new version's default worker config: a connect.protocol override (eager) is dropped.
      if (version !== w.version) w.connectProtocol = null;
      if (options.exactlyOnceSourceSupport !== undefined)
        w.exactlyOnceSourceSupport = options.exactlyOnceSourceSupport;
      if (options.downMs !== undefined && options.downMs > 0)
        await new Promise((r) => setTimeout(r, options.downMs));
      await launch(w, version);
      return { kind: "ok" };
    },
    async createConnector(name, tasksMax, kind = "source") {
      await mkdir(controlDir, { recursive: true });
      const sources = [...connectors].filter(([, c]) => c.kind === "source").map(([n]) => n);
      const config = labConnectorConfig(name, tasksMax, {
        kind,
        throughput: input.throughput,
        taskStartMs: input.taskStartMs,
        slowOnVersion: input.slowOnVersion,
        controlDir,
        topics: sources,
        exactlyOnce: input.exactlyOnce,
      });
      connectors.set(name, { kind, tasksMax, config });
      return putConnector(name, config);
    },
    async stallTask(connector, task, ms) {
      const c = connectors.get(connector);
      if (!c || !Number.isInteger(task) || task < 0 || task >= c.tasksMax)
        return { kind: "not-found", message: `no task ${connector}/${task}` };
      await stalls.stall(`${connector}/${task}`, connector, task, ms);
      return { kind: "ok" };
    },
    async resumeTask(connector, task) {
      const c = connectors.get(connector);
      if (!c || !Number.isInteger(task) || task < 0 || task >= c.tasksMax)
        return { kind: "not-found", message: `no task ${connector}/${task}` };
      await stalls.resume(`${connector}/${task}`, connector, task);
      return { kind: "ok" };
    },
    async updateConnector(name, change) {
      const known = connectors.get(name);
      if (!known) return { kind: "not-found", message: `no connector ${name}` };
      const tasksMax = change.tasksMax ?? known.tasksMax;
      const config = { ...known.config, ...(change.config ?? {}), "tasks.max": String(tasksMax) };
      connectors.set(name, { kind: known.kind, tasksMax, config });
      return putConnector(name, config);
    },
    async state() {
      const now = Date.now();
      const statuses = await readStatuses(liveUrls());
      return labState(
        { workers: input.workers, connectors, ledger, sinks, stalls, rebalances, workerAt: byUrl },
        statuses,
        now,
      );
    },
    sourcesProducing() {
      for (const [name, c] of connectors)
        if (c.kind === "source")
          for (let i = 0; i < c.tasksMax; i += 1)
            if ((ledger.task(`${name}/${i}`)?.lastAckMs ?? null) === null) return false;
      return true;
    },
    resetLedger() {
      const now = Date.now();
      ledger.reset(now);
      sinks.reset(now);
      rebalances.reset();
    },
    async close() {
      closed = true;
      // Workers first (they flush to the broker and leave the group), all at once: the broker stops after them.
      await Promise.all(input.workers.map((w) => halt(w, "graceful")));
    },
  };
}
