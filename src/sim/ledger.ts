/**
 * Every task state change with its time, and the exact disruption counters derived from it (DESIGN §2, §4).
 * "Running" here is what the task really does in the simulation, not the (possibly stale) status store.
 */
export type LedgerTaskState = "starting" | "RUNNING" | "FAILED" | "PAUSED" | "stopped" | "deleted";

export interface LedgerEntry {
  readonly at: number;
  readonly task: string;
  readonly state: LedgerTaskState;
  /** Worker name, null when the task is not on a worker. */
  readonly worker: string | null;
}

export interface LedgerTotals {
  readonly taskMoves: number;
  readonly taskInterruptions: number;
  readonly taskDowntimeMs: number;
}

export interface DowntimePoint {
  readonly at: number;
  /** Tasks not RUNNING (among those that have run once) at this instant. */
  readonly down: number;
  readonly total: number;
}

export interface LedgerReport extends LedgerTotals {
  readonly perTaskDowntimeMs: Readonly<Record<string, number>>;
  readonly maxTaskDowntimeMs: number;
  /** Largest share (0–1) of configured tasks not RUNNING at one instant, counted after their first RUNNING. */
  readonly peakUnavailableShare: number;
  readonly peakUnavailableAt: number | null;
  readonly timeline: readonly DowntimePoint[];
  readonly entries: readonly LedgerEntry[];
}

interface TaskRecord {
  runningOn: string | null;
  lastRanOn: string | null;
  downSince: number | null;
  downtime: number;
  deleted: boolean;
}

export interface Ledger {
  /** A configured task exists (created or re-created). */
  taskConfigured(task: string): void;
  taskDeleted(task: string, at: number): void;
  taskStarting(task: string, worker: string, at: number): void;
  taskRunning(task: string, worker: string, at: number): void;
  taskNotRunning(task: string, state: "FAILED" | "PAUSED", worker: string, at: number): void;
  /** The task stopped on `worker`; `workerStaysUp` makes a stop of a RUNNING task an interruption. */
  taskStopped(task: string, worker: string, at: number, workerStaysUp: boolean): void;
  totals(now: number): LedgerTotals;
  report(now: number): LedgerReport;
}

export function createLedger(options: { readonly keepEntries: boolean }): Ledger {
  const records = new Map<string, TaskRecord>();
  const entries: LedgerEntry[] = [];
  const timeline: DowntimePoint[] = [];
  let moves = 0;
  let interruptions = 0;
  let down = 0;
  let total = 0;
  let peakShare = 0;
  let peakAt: number | null = null;

  const record = (task: string): TaskRecord => {
    let r = records.get(task);
    if (!r) {
      r = { runningOn: null, lastRanOn: null, downSince: null, downtime: 0, deleted: false };
      records.set(task, r);
    }
    return r;
  };
  const log = (at: number, task: string, state: LedgerTaskState, worker: string | null) => {
    if (options.keepEntries) entries.push({ at, task, state, worker });
  };
  const sample = (at: number) => {
    const last = timeline[timeline.length - 1];
    if (last && last.at === at) timeline[timeline.length - 1] = { at, down, total };
    else timeline.push({ at, down, total });
    const share = total === 0 ? 0 : down / total;
    if (share > peakShare) {
      peakShare = share;
      peakAt = at;
    }
  };
  const goDown = (r: TaskRecord, at: number) => {
    if (r.runningOn === null) return;
    r.runningOn = null;
    r.downSince = at;
    down += 1;
    sample(at);
  };

  const totals = (now: number): LedgerTotals => {
    let downtime = 0;
    for (const r of records.values()) {
      downtime += r.downtime + (r.downSince === null ? 0 : now - r.downSince);
    }
    return { taskMoves: moves, taskInterruptions: interruptions, taskDowntimeMs: downtime };
  };

  return {
    taskConfigured(task) {
      const existing = records.get(task);
      if (!existing) {
        record(task);
        total += 1;
      } else if (existing.deleted) {
        existing.deleted = false;
        total += 1;
      }
    },
    taskDeleted(task, at) {
      const r = records.get(task);
      if (!r || r.deleted) return;
      if (r.runningOn === null && r.downSince !== null) {
        r.downtime += at - r.downSince;
        down -= 1;
      }
      r.runningOn = null;
      r.downSince = null;
      r.deleted = true;
      total -= 1;
      log(at, task, "deleted", null);
      sample(at);
    },
    taskStarting(task, worker, at) {
      log(at, task, "starting", worker);
    },
    taskRunning(task, worker, at) {
      const r = record(task);
      log(at, task, "RUNNING", worker);
      if (r.lastRanOn !== null && r.lastRanOn !== worker) moves += 1;
      r.lastRanOn = worker;
      if (r.downSince !== null) {
        r.downtime += at - r.downSince;
        r.downSince = null;
        down -= 1;
        r.runningOn = worker;
        sample(at);
      } else {
        r.runningOn = worker;
      }
    },
    taskNotRunning(task, state, worker, at) {
      const r = record(task);
      log(at, task, state, worker);
      goDown(r, at);
    },
    taskStopped(task, worker, at, workerStaysUp) {
      const r = record(task);
      log(at, task, "stopped", worker);
      if (r.runningOn === worker && workerStaysUp) interruptions += 1;
      if (r.runningOn === worker) goDown(r, at);
    },
    totals,
    report(now) {
      const perTask: Record<string, number> = {};
      let max = 0;
      for (const [task, r] of records) {
        const d = r.downtime + (r.downSince === null ? 0 : now - r.downSince);
        perTask[task] = d;
        if (d > max) max = d;
      }
      return {
        ...totals(now),
        perTaskDowntimeMs: perTask,
        maxTaskDowntimeMs: max,
        peakUnavailableShare: peakShare,
        peakUnavailableAt: peakAt,
        timeline: [...timeline],
        entries: [...entries],
      };
    },
  };
}
