/**
 * What a chaos round saw, from sources the bot does not control: the executor's call log (the control recorder),
 * the simulator's own worker events, the fake Web API's record of the thread, the faults the campaign applied and
 * what Redis holds once the round is over.
 */
export interface RestartCall {
  readonly replica: string;
  readonly worker: string;
  readonly at: number;
  readonly status: number;
}

export interface WorkerEvent {
  readonly worker: string;
  readonly kind: "down" | "up";
  readonly at: number;
}

export type FaultKind =
  | "kill-lock-holder"
  | "freeze-lock-holder"
  | "redis-restart-empty"
  | "sentinel-failover"
  | "worker-crash"
  | "rest-slow"
  | "rest-refuse"
  | "slack-429"
  | "slack-500";

export const FAULT_KINDS: readonly FaultKind[] = [
  "kill-lock-holder",
  "freeze-lock-holder",
  "redis-restart-empty",
  "sentinel-failover",
  "worker-crash",
  "rest-slow",
  "rest-refuse",
  "slack-429",
  "slack-500",
];

export interface AppliedFault {
  readonly kind: FaultKind;
  /** The replica or worker it hit; null for Redis and Slack. */
  readonly target: string | null;
  readonly at: number;
  /** When it was healed (the replica woke up, Redis answered again, the REST passed again). */
  readonly until: number;
  /** A fault whose moment came but found nothing to hit (no lock holder): recorded, not applied. */
  readonly skipped?: string;
}

export interface StepRow {
  readonly worker: string;
  /** The report's word: settled, continued, skipped, failed, "not run", "in flight", "not settled". */
  readonly status: string;
  /**
   * Skipped as found restarted after the rollout's lost record was written back: the report says its own lost part
   * (or a crash) may have restarted it.
   */
  readonly afterRecordLost?: true;
}

/** One rollout's thread as the fake Web API recorded it. */
export interface RolloutThread {
  readonly parentTs: string;
  readonly postedAt: number;
  /** Broadcast final reports, in order. */
  readonly reports: readonly {
    readonly at: number;
    readonly result: string;
    readonly steps: readonly StepRow[];
  }[];
  /** "Stopped: Redis lost this rollout's record" notes, with the rerun command they propose. */
  readonly recordLost: readonly { readonly at: number; readonly rerun: string | null }[];
}

export interface Evidence {
  readonly workers: readonly string[];
  readonly ttlMs: number;
  readonly restarts: readonly RestartCall[];
  readonly workerEvents: readonly WorkerEvent[];
  readonly rollouts: readonly RolloutThread[];
  readonly faults: readonly AppliedFault[];
  /** Moments the thread said "succeeded" while the simulator had a task not RUNNING, and which. */
  readonly succeededWhileDown: readonly { readonly at: number; readonly down: readonly string[] }[];
  readonly leftovers: { readonly lock: string | null; readonly unfinishedJobs: readonly string[] };
  /** The round ended before every rollout finished (its deadline passed). */
  readonly timedOut: string | null;
}

export interface Verdict {
  readonly invariant: string;
  readonly held: boolean;
  readonly detail: string;
}
