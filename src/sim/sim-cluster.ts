import type { Clock } from "../core/clock.js";
import { createAssignor } from "./assignor/create-assignor.js";
import { type ConnectView, createConnectView } from "./connect-view.js";
import type { ControlResult } from "./control-result.js";
import { createSimContext } from "./create-sim-context.js";
import type { LedgerReport } from "./ledger.js";
import type { Scheduler } from "./scheduler.js";
import type { SimEvent, WorkerModel } from "./sim-context.js";
import { buildSimState } from "./sim-state.js";
import type {
  ConnectorChange,
  RestartOptions,
  SimClusterOptions,
  SimState,
  StopMode,
  WorkerFaults,
} from "./sim-types.js";
import { failRecords, resumeTask, stallTask, updateConnector } from "./work-controls.js";
import { becomeRunning, beginStart, haltWorker, refusedVersion } from "./worker-lifecycle.js";

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

/** A simulated Connect cluster: its model started (every worker joining), behind the control operations. */
export function createSimCluster(init: SimClusterOptions): SimCluster {
  const { assignorFactory = createAssignor, ...options } = init;
  const ctx = createSimContext(options, assignorFactory);
  const { scheduler, workers } = ctx;

  const byName = (name: string): WorkerModel | undefined => workers.find((w) => w.name === name);
  const notFound = (name: string): ControlResult => ({
    kind: "not-found",
    message: `unknown worker ${name}`,
  });

  for (const w of workers) becomeRunning(ctx, w);

  return {
    clock: scheduler.clock,
    scheduler,
    connect: createConnectView(ctx),
    now: scheduler.now,
    advance: scheduler.advance,
    advanceTo: scheduler.advanceTo,
    stopWorker(name, mode) {
      const w = byName(name);
      if (!w) return notFound(name);
      if (w.state === "stopped") return { kind: "conflict", message: `${name} is already stopped` };
      haltWorker(ctx, w, mode);
      return { kind: "ok" };
    },
    startWorker(name, version) {
      const w = byName(name);
      if (!w) return notFound(name);
      const bad = refusedVersion(w, version);
      if (bad) return bad;
      if (w.state !== "stopped") return { kind: "conflict", message: `${name} is ${w.state}` };
      scheduler.cancel(w.pendingStart);
      beginStart(ctx, w, version);
      return { kind: "ok" };
    },
    restartWorker(name, restart = {}) {
      const w = byName(name);
      if (!w) return notFound(name);
      const bad = refusedVersion(w, restart.version);
      if (bad) return bad;
      if (w.state !== "stopped") haltWorker(ctx, w, "graceful");
      scheduler.cancel(w.pendingStart);
      const downMs = restart.downMs ?? 0;
      if (downMs === "never") return { kind: "ok" };
      w.pendingStart = scheduler.after(downMs, () => beginStart(ctx, w, restart.version));
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
    updateConnector: (name, change) => updateConnector(ctx, name, change),
    stallTask: (connector, task, ms) => stallTask(ctx, connector, task, ms),
    resumeTask: (connector, task) => resumeTask(ctx, connector, task),
    failRecords: (connector, task, count) => failRecords(ctx, connector, task, count),
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
