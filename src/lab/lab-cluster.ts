import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { ControlResult } from "../sim/sim-cluster.js";
import type { SimState, StopMode, WorkerState } from "../sim/sim-types.js";
import type { JvmProcess } from "./jvm-process.js";
import type { KafkaJars } from "./lab-jars.js";
import { createLabLedger, type LabTimeline } from "./lab-ledger.js";
import {
  type LabConnectorKind,
  type LabExactlyOnce,
  labConnectorConfig,
  readStatuses,
  restCall,
} from "./lab-rest.js";
import { createLabSinkLedger } from "./lab-sink-ledger.js";
import { createLabStalls } from "./lab-stalls.js";
import {
  advertisedIdOf,
  type ExactlyOnceSourceSetting,
  startLabWorkerJvm,
  type WorkerSpec,
} from "./lab-worker.js";
import {
  type JoinLine,
  parseGenerationLine,
  parseJoinLine,
  parseLabEvent,
  protocolName,
} from "./worker-log.js";

/** The real cluster behind the control API: worker JVMs, their logs and the ledger, shaped like the simulator's. */
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
  lastJoin: (JoinLine & { readonly at: number }) | null;
  readonly url: string;
  readonly metricsUrl: string;
}

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
  /** Connectors created exactly-once (sources `required`, sinks read_committed); null: at-least-once. */
  readonly exactlyOnce: LabExactlyOnce | null;
  /** Logged lines of interest, for diagnostics (default: none). */
  readonly onLine?: (worker: string, line: string) => void;
}

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
  state(): Promise<SimState & { readonly timeline: LabTimeline }>;
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
  /** Generation → stop-the-world (eager, or the first cooperative one after eager), since the ledger's reset. */
  const generations = new Map<number, boolean>();
  let baseline = { generation: -1, protocolVersion: 2 };
  const connectors = new Map<
    string,
    { kind: LabConnectorKind; tasksMax: number; config: Record<string, string> }
  >();
  let latestJoin: (JoinLine & { readonly at: number }) | null = null;
  let closed = false;
  const byName = (name: string) => input.workers.find((w) => w.spec.name === name);
  // A join line names the leader by its advertised URL (the worker's own unless a proxy stands in front of it).
  const byUrl = (url: string | null) =>
    url === null
      ? undefined
      : input.workers.find((w) => url.replace(/\/$/, "") === `http://${advertisedIdOf(w.spec)}`);

  const coordinatorGeneration = new Map<string, number>();
  function onLog(worker: LabWorker, line: string, at: number): void {
    const generation = parseGenerationLine(line);
    if (generation !== null) coordinatorGeneration.set(worker.spec.name, generation);
    const join = parseJoinLine(line, coordinatorGeneration.get(worker.spec.name) ?? null);
    if (join === null) return;
    input.onLine?.(worker.spec.name, line);
    const seen = { ...join, at };
    worker.lastJoin = seen;
    if (join.generation > baseline.generation && !generations.has(join.generation)) {
      const previous = latestJoin?.protocolVersion ?? baseline.protocolVersion;
      generations.set(join.generation, join.protocolVersion === 0 || previous === 0);
    }
    if (latestJoin === null || join.generation >= latestJoin.generation) latestJoin = seen;
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
    ledger.workerStopping(w.spec.name, Date.now(), byUrl(latestJoin?.leaderUrl ?? null) === w);
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
      const configured: string[] = [];
      for (const [name, c] of connectors)
        for (let i = 0; i < c.tasksMax; i += 1) configured.push(`${name}/${i}`);
      const statusOf = new Map<string, { state: string; workerId: string }>();
      for (const c of statuses ?? [])
        for (const t of c.tasks) statusOf.set(`${c.name}/${t.id}`, { state: t.state, workerId: t.worker_id });
      const running = new Set<string>();
      for (const w of input.workers)
        if (w.jvm !== null) for (const t of ledger.runningOn(w.spec.name)) running.add(t);
      const join = latestJoin;
      const deadline =
        join !== null && join.delayMs > 0 && join.at + join.delayMs > now ? join.at + join.delayMs : null;
      const restarts: Record<string, number> = {};
      for (const w of input.workers) restarts[w.spec.name] = Math.max(0, w.starts - 1);
      let eager = 0;
      for (const stopTheWorld of generations.values()) if (stopTheWorld) eager += 1;
      const totals = ledger.totals(now);
      return {
        now,
        generation: join?.generation ?? 0,
        protocol: protocolName(join?.protocolVersion ?? 2),
        leader: byUrl(join?.leaderUrl ?? null)?.spec.name ?? null,
        workers: input.workers.map((w) => ({
          name: w.spec.name,
          workerId: advertisedIdOf(w.spec),
          url: w.url,
          version: w.version,
          connectProtocol: protocolName(
            w.lastJoin?.protocolVersion ?? (w.connectProtocol === "eager" ? 0 : 2),
          ),
          state: w.state,
          joined: w.jvm !== null && w.lastJoin !== null,
          connectors: w.jvm === null ? [] : [...(w.lastJoin?.connectors ?? [])].sort(),
          tasks: w.jvm === null ? [] : ledger.runningOn(w.spec.name).sort(),
        })),
        heldTasks: configured.filter((t) => !running.has(t)),
        delayDeadline: deadline,
        tasks: configured.map((id) => {
          const s = statusOf.get(id);
          return { id, state: s?.state ?? "UNASSIGNED", workerId: s?.workerId ?? null };
        }),
        counters: {
          rebalances: generations.size,
          eagerRebalances: eager,
          taskMoves: totals.taskMoves,
          taskInterruptions: totals.taskInterruptions,
          taskDowntimeMs: totals.taskDowntimeMs,
          restarts,
        },
        dataFlow: {
          ...ledger.dataFlow(now),
          stalled: stalls.stalledNow(running, now),
          sink: [...connectors.values()].some((c) => c.kind === "sink") ? sinks.state() : null,
        },
        timeline: ledger.timeline(now),
      };
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
      generations.clear();
      if (latestJoin !== null)
        baseline = { generation: latestJoin.generation, protocolVersion: latestJoin.protocolVersion };
    },
    async close() {
      closed = true;
      // Workers first (they flush to the broker and leave the group), all at once: the broker stops after them.
      await Promise.all(input.workers.map((w) => halt(w, "graceful")));
    },
  };
}
