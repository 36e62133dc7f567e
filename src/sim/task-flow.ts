/**
 * The data each simulated task moves, behind its per-task metrics (docs/connect-behaviour.md#data-flow-metrics): a
 * source task writes `throughput` records a second while it runs; a sink task's upstream produces that many into its
 * partition, and the sink reads them while it runs, catching up three times as fast after a stop. Counters count
 * since the task instance started (Connect's "-total" metrics start again from zero at every restart); a sink's lag
 * is kept across restarts (its offsets are committed). A stalled task stays RUNNING and moves nothing; a stalled sink's
 * consumer fetches nothing, so its lag metric stays at the value of its last fetch and its fetch count stops, as on a
 * real cluster (docs/connect-behaviour.md#data-flow-metrics).
 *
 * The model also keeps the ground truth of every task's longest time without moving data (the simulator's
 * `dataFlow`, as the lab's connector lines give it on a real cluster).
 */
export interface TaskFlowSample {
  /** Records the current instance moved: a source's written (`source-record-write-total`), a sink's read. */
  readonly records: number;
  /** A sink's records behind the log end at its last fetch; null for a source. */
  readonly lag: number | null;
  /** A sink consumer's fetch requests (about two a second while it polls); null for a source. */
  readonly fetches: number | null;
  /** `total-record-failures` of the current instance. */
  readonly failures: number;
}

export interface TaskFlowGroundTruth {
  readonly maxGapMs: number;
  readonly perTask: Record<string, number>;
}

export interface TaskFlow {
  /** A task instance starts RUNNING (`fresh`: a new instance, its counters from zero; false: resumed from PAUSED). */
  running(key: string, kind: "source" | "sink", ratePerSec: number, at: number, fresh: boolean): void;
  /** The instance stops running: paused or failed (`ends` false: its metrics stay), or stopped (`ends`). */
  halted(key: string, at: number, ends: boolean): void;
  /** Moves nothing while RUNNING until `until` (null: until `resume`). */
  stall(key: string, until: number | null, at: number): void;
  resume(key: string, at: number): void;
  /** Adds record failures to the current instance (a simulated bad record, say). */
  failRecords(key: string, count: number, at: number): boolean;
  /** The current instance's counters; null when the task has no running or paused instance. */
  sample(key: string, at: number): TaskFlowSample | null;
  stalled(at: number): string[];
  groundTruth(at: number): TaskFlowGroundTruth;
}

/** A sink reads this many times its upstream rate while it has lag to catch up. */
const CATCH_UP = 3;
/** A polling consumer's fetch requests a second (long polls of an idle log included). */
const FETCHES_PER_SECOND = 2;

interface TaskRecord {
  kind: "source" | "sink";
  rate: number;
  at: number;
  instance: boolean;
  running: boolean;
  /** Infinity: until resumed; null: not stalled. */
  stallUntil: number | null;
  moved: number;
  lag: number;
  reportedLag: number;
  fetches: number;
  failures: number;
  gapStart: number | null;
  maxGap: number;
}

export function createTaskFlow(): TaskFlow {
  const tasks = new Map<string, TaskRecord>();

  const stalledAt = (r: TaskRecord, t: number) => r.stallUntil !== null && t < r.stallUntil;
  const flowing = (r: TaskRecord, t: number) => r.running && r.rate > 0 && !stalledAt(r, t);

  /** Moves the record's integrals forward to `to`, ending a timed stall on the way. */
  const integrate = (r: TaskRecord, to: number): void => {
    while (r.at < to) {
      const end = r.stallUntil !== null && r.stallUntil > r.at && r.stallUntil < to ? r.stallUntil : to;
      const seconds = (end - r.at) / 1000;
      const moving = flowing(r, r.at);
      if (r.kind === "source") {
        if (moving) r.moved += r.rate * seconds;
      } else {
        const produced = r.rate * seconds;
        const read = moving ? Math.min(r.lag + produced, CATCH_UP * r.rate * seconds) : 0;
        r.moved += read;
        r.lag = Math.max(0, r.lag + produced - read);
        if (r.running && !stalledAt(r, r.at)) {
          r.fetches += FETCHES_PER_SECOND * seconds;
          r.reportedLag = r.lag;
        }
      }
      if (moving) closeGap(r, r.at);
      else if (r.rate > 0 && r.gapStart === null) r.gapStart = r.at;
      if (r.stallUntil !== null && end === r.stallUntil) r.stallUntil = null;
      r.at = end;
    }
  };
  const closeGap = (r: TaskRecord, t: number): void => {
    if (r.gapStart === null) return;
    r.maxGap = Math.max(r.maxGap, t - r.gapStart);
    r.gapStart = null;
  };
  const at = (key: string, t: number): TaskRecord | undefined => {
    const r = tasks.get(key);
    if (r) integrate(r, t);
    return r;
  };

  return {
    running(key, kind, rate, t, fresh) {
      let r = at(key, t);
      if (!r) {
        r = {
          kind,
          rate,
          at: t,
          instance: false,
          running: false,
          stallUntil: null,
          moved: 0,
          lag: 0,
          reportedLag: 0,
          fetches: 0,
          failures: 0,
          gapStart: null,
          maxGap: 0,
        };
        tasks.set(key, r);
      }
      r.kind = kind;
      r.rate = rate;
      if (fresh || !r.instance) {
        r.moved = 0;
        r.fetches = 0;
        r.failures = 0;
        r.reportedLag = r.lag;
      }
      r.instance = true;
      r.running = true;
      if (flowing(r, t)) closeGap(r, t);
    },
    halted(key, t, ends) {
      const r = at(key, t);
      if (!r) return;
      r.running = false;
      if (ends) r.instance = false;
      if (r.rate > 0 && r.gapStart === null) r.gapStart = t;
    },
    stall(key, until, t) {
      const r = at(key, t);
      if (!r) return;
      r.stallUntil = until ?? Number.POSITIVE_INFINITY;
      if (r.rate > 0 && r.gapStart === null) r.gapStart = t;
    },
    resume(key, t) {
      const r = at(key, t);
      if (!r) return;
      r.stallUntil = null;
      if (flowing(r, t)) closeGap(r, t);
    },
    failRecords(key, count, t) {
      const r = at(key, t);
      if (!r?.instance) return false;
      r.failures += count;
      return true;
    },
    sample(key, t) {
      const r = at(key, t);
      if (!r?.instance) return null;
      return {
        records: Math.floor(r.moved),
        lag: r.kind === "sink" ? Math.floor(r.reportedLag) : null,
        fetches: r.kind === "sink" ? Math.floor(r.fetches) : null,
        failures: r.failures,
      };
    },
    stalled(t) {
      const out: string[] = [];
      for (const [key, r] of tasks) {
        integrate(r, t);
        if (r.running && stalledAt(r, t)) out.push(key);
      }
      return out;
    },
    groundTruth(t) {
      const perTask: Record<string, number> = {};
      let maxGapMs = 0;
      for (const [key, r] of tasks) {
        integrate(r, t);
        const gap = Math.max(r.maxGap, r.gapStart === null ? 0 : t - r.gapStart);
        perTask[key] = gap;
        maxGapMs = Math.max(maxGapMs, gap);
      }
      return { maxGapMs, perTask };
    },
  };
}
