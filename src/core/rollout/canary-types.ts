/**
 * The canary soak: after the first worker of an upgrade settles on the target, the rollout waits `soakMs` and
 * compares that worker's tasks with the tasks still on the old version, from the per-task metrics the gate reads.
 */

/** `canary.*` of the cluster's configuration, every default filled in. */
export interface CanarySettings {
  /** How long the canary runs beside the old workers before the next step (0: no soak). */
  readonly soakMs: number;
  /** Plain restarts soak too (a restart changes no version: off by default). */
  readonly onRestart: boolean;
  /** The canary fails when its tasks' median record rate is below this share of the old workers' (0.5 = half). */
  readonly minRateRatio: number;
  /** The canary fails when its tasks record more new record failures than this, and more per task than the others. */
  readonly maxNewFailures: number;
  /**
   * The canary fails when its JVM spent more than this many times the old workers' share of the soak in GC (and more
   * than `minGcShare` of it): where the JVM's series are exported.
   */
  readonly maxGcRatio: number;
  /** The GC share below which the canary never fails on GC (0.05: 5 % of the soak's time in GC). */
  readonly minGcShare: number;
  /** The canary fails when its heap used is above this share of its max heap at the soak's end, the old workers' below. */
  readonly maxHeapShare: number;
}

/** One task's counters at the start of the soak, and where it ran. */
export interface CanaryCounter {
  readonly workerId: string;
  readonly records: number;
  readonly failures: number;
}

/** What the soak measured: the canary's tasks against the tasks on workers still on the old version. */
export interface CanaryFigures {
  readonly soakMs: number;
  readonly canaryTasks: number;
  readonly otherTasks: number;
  /** Median records a second per task; null when no task of that side could be measured (no per-task metrics). */
  readonly canaryRate: number | null;
  readonly otherRate: number | null;
  /**
   * The canary's rate as a share of the others', connector by connector (the median over the connectors with tasks
   * measured on both sides and moving data on the old ones); null when no connector has both.
   */
  readonly rateRatio: number | null;
  /** New record failures (`total-record-failures` and dead-letter produce failures) during the soak. */
  readonly canaryFailures: number;
  readonly otherFailures: number;
  /**
   * The share of the soak each side's JVM spent in GC (the old workers': their median), and the heap used as a share
   * of the max at the soak's end; null (or absent, in a checkpoint from before they were measured) when not exported.
   */
  readonly canaryGcShare?: number | null;
  readonly otherGcShare?: number | null;
  readonly canaryHeapShare?: number | null;
  readonly otherHeapShare?: number | null;
}

/** Why the canary failed, naming the metric and both sides' values. */
export type CanaryFinding =
  | {
      readonly metric: "record-rate";
      readonly canary: number;
      readonly others: number;
      readonly ratio: number;
      readonly minRatio: number;
    }
  | {
      readonly metric: "record-failures";
      readonly canary: number;
      readonly others: number;
      readonly canaryTasks: number;
      readonly otherTasks: number;
    }
  | { readonly metric: "task-failed"; readonly tasks: readonly string[] }
  | {
      readonly metric: "gc-time";
      readonly canary: number;
      readonly others: number;
      readonly maxRatio: number;
    }
  | { readonly metric: "heap"; readonly canary: number; readonly others: number; readonly maxShare: number }
  /** The canary does not answer on the target at the soak's end. */
  | { readonly metric: "canary-down" }
  /** Tasks the canary ran at the soak's start run elsewhere (or nowhere) at its end. */
  | { readonly metric: "tasks-lost"; readonly tasks: readonly string[] };

export interface CanaryTrack {
  /** The canary's step and worker. */
  readonly step: number;
  readonly worker: string;
  readonly workerId: string;
  readonly startedAt: number;
  /** Every task's counters when the soak began, by task key. */
  readonly start: Readonly<Record<string, CanaryCounter>>;
  /** Each worker JVM's GC seconds when the soak began, by worker id (absent: not exported, or an older checkpoint). */
  readonly gcAtStart?: Readonly<Record<string, number>>;
  /** Tasks FAILED when the soak began: not the canary's doing (absent in a checkpoint from before it was kept). */
  readonly failedAtStart?: readonly string[];
  /**
   * `soaking` until the soak ends; `passed`; `failed` while the prompt waits; `continued` past a failure by a person;
   * `rolled-back` once a person chose to return the canary to the version it left (the rollout ends failed).
   */
  readonly verdict: "soaking" | "passed" | "failed" | "continued" | "rolled-back";
  readonly figures: CanaryFigures | null;
  readonly findings: readonly CanaryFinding[];
}
