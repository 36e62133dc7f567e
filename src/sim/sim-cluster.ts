import type { Clock } from "../core/clock.js";
import { createAssignor } from "./assignor/create-assignor.js";
import { type ConnectView, createConnectView } from "./connect-view.js";
import { crashMember, joinGroup, leaveGroup, requestRebalance } from "./group-coordinator.js";
import { createLedger, type LedgerReport } from "./ledger.js";
import { createPrng } from "./prng.js";
import { workerProtocols } from "./protocol-model.js";
import { createScheduler, type Scheduler } from "./scheduler.js";
import {
  type ConnectorModel,
  connectorTaskKeys,
  emit,
  type SimContext,
  type SimEvent,
  type WorkerModel,
} from "./sim-context.js";
import { buildSimState } from "./sim-state.js";
import type {
  ConnectorChange,
  ConnectorSpec,
  RestartOptions,
  SimClusterOptions,
  SimState,
  StopMode,
  WorkerFaults,
} from "./sim-types.js";
import { createStatusStore } from "./status-store.js";
import { createTaskFlow } from "./task-flow.js";
import { restartTaskInPlace, stopAllWork, stopTasks } from "./worker-runtime.js";

/** The outcome of a control operation: expected refusals are values (the control API maps them to 404/409). */
export type ControlResult =
  | { readonly kind: "ok" }
  | { readonly kind: "not-found"; readonly message: string }
  | { readonly kind: "conflict"; readonly message: string }
  | { readonly kind: "invalid"; readonly message: string };

export interface SimCluster {
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly connect: ConnectView;
  now(): number;
  /** Virtual time only (throws AppError sim/invalid otherwise). */
  advance(ms: number): void;
  advanceTo(t: number): void;
  stopWorker(name: string, mode: StopMode): ControlResult;
  startWorker(name: string, version?: string): ControlResult;
  restartWorker(name: string, options?: RestartOptions): ControlResult;
  setFaults(name: string, faults: Partial<WorkerFaults> & { readonly restartMs?: number }): ControlResult;
  updateConnector(name: string, change: ConnectorChange): ControlResult;
  /** A task stays RUNNING and moves nothing for `ms` (null: until `resumeTask`). */
  stallTask(connector: string, task: number, ms: number | null): ControlResult;
  resumeTask(connector: string, task: number): ControlResult;
  /** Adds record failures to a running task's `total-record-failures`. */
  failRecords(connector: string, task: number, count: number): ControlResult;
  workerNames(): string[];
  faultsOf(name: string): WorkerFaults | null;
  state(): SimState;
  report(): LedgerReport;
  /** Subscribes to worker up/down events (the HTTP layer opens and closes ports); returns the unsubscribe. */
  onEvent(listener: (event: SimEvent) => void): () => void;
  close(): void;
}

function makeConnectors(options: SimClusterOptions): ConnectorModel[] {
  const specs: ConnectorSpec[] = options.connectorSpecs
    ? [...options.connectorSpecs]
    : Array.from({ length: options.connectors }, (_, i) => ({
        name: `conn-${String(i + 1).padStart(2, "0")}`,
        type: i % 2 === 0 ? ("source" as const) : ("sink" as const),
        tasksMax: options.tasksPerConnector,
      }));
  return specs.map((s) => ({
    name: s.name,
    type: s.type,
    tasksMax: s.tasksMax,
    target: "STARTED",
    config: {
      name: s.name,
      "connector.class":
        s.type === "source"
          ? "org.apache.kafka.connect.tools.MockSourceConnector"
          : "org.apache.kafka.connect.tools.MockSinkConnector",
      "tasks.max": String(s.tasksMax),
      ...(s.type === "sink" ? { topics: `topic-${s.name}` } : {}),
      ...s.config,
    },
  }));
}

export function createSimCluster(init: SimClusterOptions): SimCluster {
  const { assignorFactory = createAssignor, ...options } = init;
  const startAt = options.startAt ?? (options.virtualTime ? 0 : Date.now());
  const scheduler = createScheduler({
    mode: options.virtualTime ? { kind: "virtual" } : { kind: "real", speed: options.speed },
    startAt,
  });
  const prng = createPrng(options.seed);
  let token = 0;
  const workers: WorkerModel[] = Array.from({ length: options.workers }, (_, index) => {
    const name = `worker-${index + 1}`;
    const o = options.workerOverrides?.[name] ?? {};
    const port = options.ports?.[index] ?? 8083 + index;
    return {
      name,
      index,
      workerId: `${options.host}:${port}`,
      url: `http://${options.host}:${port}`,
      version: o.version ?? options.version,
      connectProtocol: o.connectProtocol === undefined ? options.connectProtocol : o.connectProtocol,
      delayMs: o.delayMs ?? options.delayMs,
      restartMs: o.restartMs ?? options.restartMs,
      state: "stopped",
      member: null,
      pendingStart: null,
      faults: { restStatus: null, hangMs: null },
      starts: 0,
      // The initial workers start with the simulation.
      startTimeMs: startAt,
    };
  });
  const ctx: SimContext = {
    options: { ...options, startAt },
    scheduler,
    prng,
    ledger: createLedger({ keepEntries: true }),
    flow: createTaskFlow(),
    status: createStatusStore(),
    workers,
    connectors: new Map(makeConnectors(options).map((c) => [c.name, c])),
    group: {
      members: [],
      generation: 0,
      protocol: null,
      leader: null,
      assignors: null,
      rebalance: null,
      delayTimer: null,
      delayDeadline: null,
      rebalances: 0,
      eagerRebalances: 0,
    },
    listeners: new Set(),
    assignorFactory,
    nextToken: () => {
      token += 1;
      return token;
    },
  };
  for (const c of ctx.connectors.values()) for (const t of connectorTaskKeys(c)) ctx.ledger.taskConfigured(t);

  const byName = (name: string): WorkerModel | undefined => workers.find((w) => w.name === name);
  const notFound = (name: string): ControlResult => ({
    kind: "not-found",
    message: `unknown worker ${name}`,
  });

  const becomeRunning = (w: WorkerModel): void => {
    w.pendingStart = null;
    w.state = "running";
    w.starts += 1;
    emit(ctx, { kind: "worker-up", worker: w.name });
    w.member = joinGroup(ctx, w);
  };

  const bootTime = (w: WorkerModel): number => {
    const jitter = options.restartJitter * (2 * prng.next() - 1);
    return Math.max(0, Math.round(w.restartMs * (1 + jitter)));
  };

  const beginStart = (w: WorkerModel, version: string | undefined): void => {
    if (version !== undefined) w.version = version;
    w.state = "starting";
    w.startTimeMs = scheduler.now();
    w.pendingStart = scheduler.after(bootTime(w), () => becomeRunning(w));
  };

  const halt = (w: WorkerModel, mode: StopMode): void => {
    scheduler.cancel(w.pendingStart);
    w.pendingStart = null;
    const member = w.member;
    const wasRunning = w.state === "running";
    w.state = "stopped";
    w.startTimeMs = null;
    w.member = null;
    // Connect.stop() stops the REST server first, then the herder (docs/connect-behaviour.md#members-and-rebalances).
    if (wasRunning) emit(ctx, { kind: "worker-down", worker: w.name });
    if (!member) return;
    if (mode === "graceful") {
      stopAllWork(ctx, member, { writeStatus: true, workerStaysUp: false, shutdown: true });
      member.alive = false;
      leaveGroup(ctx, member);
    } else {
      stopAllWork(ctx, member, { writeStatus: false, workerStaysUp: false });
      crashMember(ctx, member);
    }
  };

  /** A version the worker could not start on (Kafka would reject its connect.protocol, or it is not modelled). */
  const checkVersion = (w: WorkerModel, version: string | undefined): ControlResult | null => {
    if (version === undefined) return null;
    const protocols = workerProtocols(version, w.connectProtocol);
    return protocols.kind === "refused"
      ? { kind: "invalid", message: `${w.name}: ${protocols.message}` }
      : null;
  };

  for (const w of workers) becomeRunning(w);

  const configuredTask = (connector: string, task: number): string | null => {
    const c = ctx.connectors.get(connector);
    return c && Number.isInteger(task) && task >= 0 && task < c.tasksMax ? `${connector}/${task}` : null;
  };
  const noTask = (connector: string, task: number): ControlResult => ({
    kind: "not-found",
    message: `unknown task ${connector}/${task}`,
  });

  const view = createConnectView(ctx);

  return {
    clock: scheduler.clock,
    scheduler,
    connect: view,
    now: scheduler.now,
    advance: scheduler.advance,
    advanceTo: scheduler.advanceTo,
    stopWorker(name, mode) {
      const w = byName(name);
      if (!w) return notFound(name);
      if (w.state === "stopped") return { kind: "conflict", message: `${name} is already stopped` };
      halt(w, mode);
      return { kind: "ok" };
    },
    startWorker(name, version) {
      const w = byName(name);
      if (!w) return notFound(name);
      const bad = checkVersion(w, version);
      if (bad) return bad;
      if (w.state !== "stopped") return { kind: "conflict", message: `${name} is ${w.state}` };
      scheduler.cancel(w.pendingStart);
      beginStart(w, version);
      return { kind: "ok" };
    },
    restartWorker(name, restart = {}) {
      const w = byName(name);
      if (!w) return notFound(name);
      const bad = checkVersion(w, restart.version);
      if (bad) return bad;
      if (w.state !== "stopped") halt(w, "graceful");
      scheduler.cancel(w.pendingStart);
      const downMs = restart.downMs ?? 0;
      if (downMs === "never") return { kind: "ok" };
      w.pendingStart = scheduler.after(downMs, () => beginStart(w, restart.version));
      return { kind: "ok" };
    },
    setFaults(name, faults) {
      const w = byName(name);
      if (!w) return notFound(name);
      w.faults = {
        restStatus: faults.restStatus === undefined ? w.faults.restStatus : faults.restStatus,
        hangMs: faults.hangMs === undefined ? w.faults.hangMs : faults.hangMs,
      };
      if (faults.restartMs !== undefined) w.restartMs = faults.restartMs;
      return { kind: "ok" };
    },
    updateConnector(name, change) {
      const c = ctx.connectors.get(name);
      if (!c) return { kind: "not-found", message: `unknown connector ${name}` };
      const before = new Set(connectorTaskKeys(c));
      const tasksMax = change.tasksMax ?? Number(change.config?.["tasks.max"] ?? c.tasksMax);
      if (!Number.isInteger(tasksMax) || tasksMax < 0) return { kind: "invalid", message: "bad tasks.max" };
      c.config = { ...c.config, ...change.config, "tasks.max": String(tasksMax) };
      c.tasksMax = tasksMax;
      const after = new Set(connectorTaskKeys(c));
      const now = scheduler.now();
      const removed = [...before].filter((t) => !after.has(t));
      for (const t of removed) {
        ctx.ledger.taskDeleted(t, now);
        ctx.status.deleteTask(t);
      }
      for (const t of after) ctx.ledger.taskConfigured(t);
      for (const m of ctx.group.members) {
        if (!m.alive) continue;
        stopTasks(ctx, m, removed, { writeStatus: false, workerStaysUp: false });
        // New task configs: the tasks that stay are restarted with them where they run.
        for (const t of [...m.tasks.keys()]) if (after.has(t)) restartTaskInPlace(ctx, m, t);
      }
      requestRebalance(ctx);
      return { kind: "ok" };
    },
    stallTask(connector, task, ms) {
      const key = configuredTask(connector, task);
      if (key === null) return noTask(connector, task);
      const now = scheduler.now();
      ctx.flow.stall(key, ms === null ? null : now + ms, now);
      return { kind: "ok" };
    },
    resumeTask(connector, task) {
      const key = configuredTask(connector, task);
      if (key === null) return noTask(connector, task);
      ctx.flow.resume(key, scheduler.now());
      return { kind: "ok" };
    },
    failRecords(connector, task, count) {
      const key = configuredTask(connector, task);
      if (key === null) return noTask(connector, task);
      return ctx.flow.failRecords(key, count, scheduler.now())
        ? { kind: "ok" }
        : { kind: "conflict", message: `${key} is not running` };
    },
    workerNames: () => workers.map((w) => w.name),
    faultsOf: (name) => byName(name)?.faults ?? null,
    state: () => buildSimState(ctx),
    report: () => ctx.ledger.report(scheduler.now()),
    onEvent(listener) {
      ctx.listeners.add(listener);
      return () => ctx.listeners.delete(listener);
    },
    close: () => scheduler.close(),
  };
}
