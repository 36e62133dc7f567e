/**
 * The lab's ledger: what the lab connector's tasks printed (start, stop, every acknowledged record) and what the lab
 * did to the workers, kept with the simulator's definitions. A *move* is a task started on another worker than the
 * one it last ran on; an *interruption* is a running task stopped while its own worker stays up; task downtime is
 * the time a task was not running; the data-flow gap of a task is the largest time between two of its records that
 * the broker acknowledged.
 */
export interface LabTaskEntry {
  runningOn: string | null;
  lastWorker: string | null;
  downSince: number | null;
  downtimeMs: number;
  lastAckMs: number | null;
  maxGapMs: number;
}

/** A stretch of a task's records longer than `GAP_MIN_MS` with none acknowledged; `toMs` null while it lasts. */
export interface LabGap {
  readonly task: string;
  readonly fromMs: number;
  readonly toMs: number | null;
}

/** When things happened since the last reset: for figures that need "at the same instant" or "during which step". */
export interface LabTimeline {
  readonly gaps: readonly LabGap[];
  readonly interruptions: readonly { readonly task: string; readonly worker: string; readonly at: number }[];
  /** Each worker stop the lab made, and whether that worker led the group when it was stopped. */
  readonly stops: readonly { readonly worker: string; readonly at: number; readonly wasLeader: boolean }[];
}

/** A lab task acknowledges records every 100 ms at its default rate: a second without any is a gap. */
export const GAP_MIN_MS = 1_000;

export interface LabTotals {
  readonly taskMoves: number;
  readonly taskInterruptions: number;
  readonly taskDowntimeMs: number;
}

export interface LabLedger {
  taskStarted(task: string, worker: string, at: number): void;
  /** A task stopped; `workerStopping` when its worker was being stopped (not an interruption). */
  taskStopped(task: string, worker: string, at: number, workerStopping: boolean): void;
  /** The lab begins to stop a worker (`wasLeader`: it led the group then). */
  workerStopping(worker: string, at: number, wasLeader: boolean): void;
  /** The worker's process is gone (crash or stop): its tasks are no longer running. */
  workerGone(worker: string, at: number): void;
  recordAcked(task: string, at: number): void;
  runningOn(worker: string): string[];
  task(id: string): LabTaskEntry | undefined;
  tasks(): ReadonlyMap<string, LabTaskEntry>;
  totals(now: number): LabTotals;
  dataFlow(now: number): { maxGapMs: number; perTask: Record<string, number> };
  timeline(now: number): LabTimeline;
  /** Zeroes the counters (after the lab came up): what follows is what the user's actions caused. */
  reset(now: number): void;
}

export function createLabLedger(): LabLedger {
  const entries = new Map<string, LabTaskEntry>();
  let moves = 0;
  let interruptions = 0;
  let countFrom = 0;
  let gaps: LabGap[] = [];
  let interrupted: { task: string; worker: string; at: number }[] = [];
  let stops: { worker: string; at: number; wasLeader: boolean }[] = [];

  const entry = (id: string): LabTaskEntry => {
    let e = entries.get(id);
    if (e === undefined) {
      e = { runningOn: null, lastWorker: null, downSince: null, downtimeMs: 0, lastAckMs: null, maxGapMs: 0 };
      entries.set(id, e);
    }
    return e;
  };
  const stop = (e: LabTaskEntry, worker: string, at: number): void => {
    e.runningOn = null;
    e.lastWorker = worker;
    e.downSince = Math.max(at, countFrom);
  };

  return {
    taskStarted(task, worker, at) {
      const e = entry(task);
      if (e.runningOn !== null && e.runningOn !== worker) stop(e, e.runningOn, at);
      if (e.runningOn === worker) return;
      if (e.lastWorker !== null && e.lastWorker !== worker) moves += 1;
      if (e.downSince !== null) e.downtimeMs += Math.max(0, at - e.downSince);
      e.downSince = null;
      e.runningOn = worker;
    },
    taskStopped(task, worker, at, workerStopping) {
      const e = entry(task);
      if (e.runningOn !== worker) return;
      if (!workerStopping) {
        interruptions += 1;
        if (at >= countFrom) interrupted.push({ task, worker, at });
      }
      stop(e, worker, at);
    },
    workerStopping(worker, at, wasLeader) {
      stops.push({ worker, at, wasLeader });
    },
    workerGone(worker, at) {
      for (const e of entries.values()) if (e.runningOn === worker) stop(e, worker, at);
    },
    recordAcked(task, at) {
      const e = entry(task);
      if (e.lastAckMs !== null && at >= countFrom) {
        const from = Math.max(e.lastAckMs, countFrom);
        e.maxGapMs = Math.max(e.maxGapMs, at - from);
        if (at - from >= GAP_MIN_MS) gaps.push({ task, fromMs: from, toMs: at });
      }
      e.lastAckMs = at;
    },
    runningOn(worker) {
      return [...entries].filter(([, e]) => e.runningOn === worker).map(([id]) => id);
    },
    task: (id) => entries.get(id),
    tasks: () => entries,
    totals(now) {
      let downtime = 0;
      for (const e of entries.values())
        downtime += e.downtimeMs + (e.downSince === null ? 0 : Math.max(0, now - e.downSince));
      return { taskMoves: moves, taskInterruptions: interruptions, taskDowntimeMs: downtime };
    },
    dataFlow(now) {
      const perTask: Record<string, number> = {};
      let max = 0;
      for (const [id, e] of entries) {
        // A task that has not produced for a while is in a gap right now: count it.
        const open = e.lastAckMs === null ? 0 : now - Math.max(e.lastAckMs, countFrom);
        const gap = Math.max(e.maxGapMs, e.runningOn === null ? open : 0);
        perTask[id] = gap;
        max = Math.max(max, gap);
      }
      return { maxGapMs: max, perTask };
    },
    timeline(now) {
      const open: LabGap[] = [];
      for (const [task, e] of entries) {
        const from = e.lastAckMs === null ? null : Math.max(e.lastAckMs, countFrom);
        if (from !== null && now - from >= GAP_MIN_MS) open.push({ task, fromMs: from, toMs: null });
      }
      return { gaps: [...gaps, ...open], interruptions: [...interrupted], stops: [...stops] };
    },
    reset(now) {
      gaps = [];
      interrupted = [];
      stops = [];
      moves = 0;
      interruptions = 0;
      countFrom = now;
      for (const e of entries.values()) {
        e.downtimeMs = 0;
        e.maxGapMs = 0;
        if (e.downSince !== null) e.downSince = now;
      }
    },
  };
}
