import type { ClusterSnapshot } from "../snapshot.js";
import type { FlowTrack } from "./track-flow.js";

/** How the worker was stopped: graceful (LeaveGroup at once) or crash (noticed after the session timeout). */
export type StopMode = "graceful" | "crash";

/** What the gate compares against: the cluster just before a step, and what the step did. */
export interface Baseline {
  readonly snapshot: ClusterSnapshot;
  readonly step: number;
  readonly worker: { readonly name: string; readonly workerId: string; readonly url: string };
  readonly targetVersion: string;
  readonly stopIssuedAt: number;
  readonly stopMode: StopMode;
  readonly isLeader: boolean;
  /** The worker held connectors or tasks before the step, so it must hold work again. */
  readonly heldWork: boolean;
  /** Task keys ("connector/N") the worker ran before the step. */
  readonly workerTasks: readonly string[];
  /** When the scheduled delay should release the worker's tasks; null when no delay applies (leader, delay 0). */
  readonly delayDeadline: number | null;
  /** Which tasks moved data before the step (from the per-task metrics); null when data flow is not visible. */
  readonly flow: BaselineFlow | null;
}

/** The tasks' data flow just before a step (`learnBaselineFlow`). */
export interface BaselineFlow {
  /** Moved data within the window before the step: each must move data again before the gate passes. */
  readonly flowing: readonly string[];
  /** RUNNING and moved nothing through the window: exempt from the data-flow condition. */
  readonly idle: readonly string[];
  /** Each task's record failures so far (a rise during the step fails the gate). */
  readonly errors: Readonly<Record<string, number>>;
  /** Each sink task's lag. */
  readonly lag: Readonly<Record<string, number>>;
}

export interface GatePolicy {
  /** Identical assignments needed in a row (default 3). */
  readonly consecutivePolls?: number;
  /** The last rebalance must be at least this old (default 10000). */
  readonly quietPeriodMs?: number;
  /** Beyond the delay deadline (or the stop), waiting longer than this is slow (default 120000). */
  readonly expectedSettleMs?: number;
  /** Beyond the delay deadline (or the stop), waiting longer than this fails the gate (default 1800000). */
  readonly failAfterMs?: number;
  /** A task RUNNING before the step may be PAUSED after it (default false). */
  readonly allowPaused?: boolean;
  /** A task that flowed before the step and shows no progress this long while RUNNING is stalled (default 60000). */
  readonly stallAfterMs?: number;
  /** How long the track watches the tasks before the first step to tell flowing from idle (default 10000). */
  readonly flowWindowMs?: number;
}

export interface ResolvedGatePolicy {
  readonly consecutivePolls: number;
  readonly quietPeriodMs: number;
  readonly expectedSettleMs: number;
  readonly failAfterMs: number;
  readonly allowPaused: boolean;
  readonly stallAfterMs: number;
  readonly flowWindowMs: number;
}

export interface SettleInput {
  readonly baseline: Baseline;
  /** Recent polls, oldest first; the last one is the current state. */
  readonly polls: readonly ClusterSnapshot[];
  /**
   * How many polls in a row, the last included, showed the same task → state@worker map since the stop; counted
   * from `polls` when absent. The rollout keeps this count (stable-run.ts), not the polls.
   */
  readonly stablePolls?: number;
  readonly policy: GatePolicy;
  readonly now: number;
  /** The rollout's data-flow track (all reads so far); without it the gate judges by statuses alone. */
  readonly flow?: FlowTrack;
}

type Reason<C extends string, D extends object = Record<never, never>> = {
  readonly code: C;
  readonly message: string;
} & Readonly<D>;

export interface TaskStateRef {
  readonly task: string;
  readonly state: string;
  readonly workerId: string | null;
}

/** Why the gate has not passed (or failed). Each carries a `message` the chat layer can show verbatim. */
export type GateReason =
  | Reason<"no-polls">
  | Reason<"worker-down", { worker: string }>
  | Reason<"worker-starting", { worker: string; health: string }>
  | Reason<"worker-version-mismatch", { worker: string; reported: string | null; expected: string }>
  | Reason<"worker-idle", { worker: string }>
  | Reason<"worker-unreachable", { worker: string }>
  | Reason<"connectors-unreadable">
  | Reason<"connector-missing", { connector: string }>
  | Reason<"connector-added", { connector: string }>
  | Reason<"task-count-changed", { connector: string; before: number; now: number }>
  | Reason<"task-missing", { tasks: readonly string[] }>
  | Reason<"task-failed", { task: string; trace: string | null }>
  | Reason<"connector-failed", { connector: string; trace: string | null }>
  | Reason<"tasks-not-running", { tasks: readonly TaskStateRef[] }>
  | Reason<"stale-running", { worker: string; claimed: number; assigned: number; tasks: readonly string[] }>
  | Reason<"task-on-unknown-worker", { tasks: readonly TaskStateRef[] }>
  | Reason<
      "held-by-scheduled-delay",
      { worker: string; heldTasks: readonly string[]; remainingMs: number | null }
    >
  | Reason<"epoch-mismatch", { epochs: readonly number[] }>
  | Reason<"leader-mismatch", { leaders: readonly string[] }>
  | Reason<"leader-not-live", { leaderUrl: string }>
  | Reason<"rebalancing", { workers: readonly string[] }>
  | Reason<"rebalance-recent", { remainingMs: number }>
  | Reason<"assignment-incomplete", { assigned: number; configured: number }>
  | Reason<"assignment-excess", { assigned: number; configured: number }>
  | Reason<"assignment-unstable", { stablePolls: number; needed: number }>
  | Reason<"eos-leader-unreachable", { leaderUrl: string; connectors: readonly string[] }>
  | Reason<"eos-no-commit", { tasks: readonly { task: string; workerId: string | null }[] }>
  | Reason<
      "data-not-flowing",
      {
        /** `quietMs`: the task moved data since it started, then made no progress for this long. */
        tasks: readonly { task: string; runningForMs: number | null; quietMs?: number }[];
      }
    >
  | Reason<
      "data-stalled",
      { tasks: readonly { task: string; connector: string; lastMovedAt: number | null; quietMs: number }[] }
    >
  | Reason<"task-errors", { tasks: readonly { task: string; failures: number }[] }>
  | Reason<"gate-slow", { overdueMs: number }>
  | Reason<"gate-timeout", { elapsedMs: number }>;

export type GateReasonCode = GateReason["code"];

export type SettleVerdict =
  | { readonly kind: "settled" }
  | { readonly kind: "waiting"; readonly reasons: readonly GateReason[] }
  | { readonly kind: "failed"; readonly reasons: readonly GateReason[] };
