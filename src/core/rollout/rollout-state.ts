import type { Plan, ResolvedPlanPolicy, RolloutTarget } from "../plan/plan-types.js";
import type { Baseline, BaselineFlow, GateReason, ResolvedGatePolicy } from "../settle/settle-types.js";
import type { StableRun } from "../settle/stable-run.js";
import type { FlowTrack } from "../settle/track-flow.js";
import type { ClusterSnapshot } from "../snapshot.js";
import type { ApprovalKind, ApprovalRecord, PendingApproval } from "./approval-types.js";
import type { CanarySettings, CanaryTrack } from "./canary-types.js";
import type { FinishReason, StepNote } from "./rollout-reasons.js";
import type { WindowKey } from "./window-key.js";

/**
 * The rollout's checkpoint: saved (fenced) after every transition, so another replica can resume from it. Its steps,
 * its phase and what it must remember between polls.
 */
export const ROLLOUT_STATE_VERSION = 2;
/**
 * The checkpoint versions this build resumes. 2 added the canary soak (settings and track) and a step's `toVersion`
 * (a rollback step); a version-1 checkpoint has neither and resumes alike. A bot of an older build cannot read a version
 * it does not know: during a bot upgrade, an old replica that takes over a rollout this build started logs the
 * checkpoint unreadable and holds the cluster's lock for a lease without running it, each time its sweep gets there
 * first; a replica of this build takes the rollout over when its own sweep does.
 */
export const READABLE_STATE_VERSIONS = [1, 2] as const;

export type StepStatus =
  | "pending"
  | "restart-issued"
  | "restarting"
  | "waiting-back"
  | "settling"
  | "settled"
  | "continued"
  | "skipped"
  | "failed";

export interface StepMeasurements {
  /** Stop issued → the worker's REST answers on the target version. */
  readonly restartMs: number | null;
  /** Back → gate passed. */
  readonly settleMs: number | null;
  readonly tasksMoved: number;
  /** Σ over tasks of time not RUNNING during the step, at poll resolution (task·ms). */
  readonly taskDowntimeMs: number;
  readonly rebalances: number;
  readonly eagerRebalances: number;
  readonly polls: number;
}

export interface StepRecord {
  readonly step: number;
  readonly worker: string;
  readonly workerId: string;
  readonly url: string;
  readonly isLeader: boolean;
  readonly fromVersion: string | null;
  readonly status: StepStatus;
  readonly attempts: number;
  readonly restartIssuedAt: number | null;
  readonly restartDetail: string | null;
  readonly backAt: number | null;
  readonly backVersion: string | null;
  readonly settledAt: number | null;
  /** Latest reasons the gate gave (shown live in the step's thread reply). */
  readonly gate: readonly GateReason[];
  /** Why it was skipped, continued or failed, or how its window went (src/wording/ words it). */
  readonly note: StepNote | null;
  readonly measurements: StepMeasurements;
  /** What the per-task metrics showed of the data this step stopped; null when data flow was not visible. */
  readonly dataFlow: StepDataFlow | null;
  /** The exactly-once source tasks this step restarted or moved (absent: none seen). */
  readonly exactlyOnce?: StepExactlyOnce;
  /**
   * The version this step puts its worker on when it is not the rollout's target: a failed canary's rollback step
   * returns the canary to the version it left (absent: the target, or for a plain restart its own version).
   */
  readonly toVersion?: string;
  /** Since when its worker has not answered at its turn, before its first attempt (absent: it answers). */
  readonly silentSince?: number;
}

/** What the gate saw of a step's exactly-once tasks: their first committed transaction and fencing failures. */
export interface StepExactlyOnce {
  readonly tasks: readonly string[];
  /** From the restart's issue to the first poll on which each of them had committed a transaction; null: not yet. */
  readonly firstCommitMs: number | null;
  /** Tasks seen FAILED by a failed fencing during the step (each prompt counts its tasks). */
  readonly fencingFailures: number;
}

/** A step's data flow, from the per-task metrics. */
export interface StepDataFlow {
  /**
   * Each task's data-flow gap that closed during the step, from its last reading that advanced before it stopped to
   * the first that advanced after it started (ms; resolution: the poll interval).
   */
  readonly gaps: Readonly<Record<string, number>>;
  /** Tasks idle at the step's baseline (exempt from the data-flow condition). */
  readonly idle: number;
  /** Each sink task's largest lag above its baseline's, read during the step (records). */
  readonly peakLag: Readonly<Record<string, number>>;
  /**
   * Sink tasks whose lag grew during the step, when it settled: the lag then, the most it reached and its trend;
   * largest peak first, at most five.
   */
  readonly lag: readonly {
    readonly task: string;
    readonly lag: number;
    readonly peak: number;
    readonly trend: "rising" | "falling" | "steady";
  }[];
}

/** Connector configs and task counts at the start (config freeze). */
export type FreezeSnapshot = Readonly<
  Record<string, { readonly configHash: string; readonly taskCount: number }>
>;

/** What the tracker remembers between polls to count moves, downtime and rebalances. */
export interface DisruptionTrack {
  readonly at: number | null;
  readonly epoch: number | null;
  /** Task → worker it last ran on (RUNNING and really live). */
  readonly lastWorker: Readonly<Record<string, string>>;
  /** Tasks not RUNNING (or only stale RUNNING) at the last poll. */
  readonly down: readonly string[];
  /** The group ran eager at the last poll. */
  readonly eager: boolean;
}

export type Phase =
  | { readonly kind: "planning" }
  | { readonly kind: "awaiting-approval"; readonly approval: PendingApproval; readonly resume: ResumePoint }
  | {
      readonly kind: "before-step";
      readonly step: number;
      /** After a failed or unconfirmed restart is retried: the baseline from before the first attempt. */
      readonly retryBaseline?: Baseline | null;
      /** With no step left: when the wait for the last tasks to run again began (absent: not waiting). */
      readonly closingSince?: number;
    }
  | {
      readonly kind: "restarting";
      readonly step: number;
      readonly stepId: string;
      readonly baseline: Baseline;
    }
  | {
      readonly kind: "verifying-restart";
      readonly step: number;
      readonly since: number;
      readonly seenDown: boolean;
      readonly baseline: Baseline | null;
    }
  | {
      readonly kind: "waiting-back";
      readonly step: number;
      readonly since: number;
      readonly seenDown: boolean;
      readonly baseline: Baseline;
    }
  | {
      readonly kind: "settling";
      readonly step: number;
      readonly baseline: Baseline;
      /** The run of identical polls so far; null before the first poll (and in a checkpoint that kept none). */
      readonly stable?: StableRun | null;
      /** When to ask again whether to keep waiting (after a slow-gate prompt). */
      readonly askSlowAfter: number | null;
    }
  | { readonly kind: "paused"; readonly step: number; readonly by: string; readonly at: number }
  | { readonly kind: "finished"; readonly result: RolloutResult; readonly reason: FinishReason };

/** Where to go once an approval is granted. */
export type ResumePoint =
  | { readonly kind: "before-step"; readonly step: number; readonly approved: ApprovalKind }
  /** Planned again after the decision (a question asked before the plan's own, e.g. recently started workers). */
  | { readonly kind: "planning" }
  | { readonly kind: "settling"; readonly step: number; readonly baseline: Baseline }
  | { readonly kind: "step-done"; readonly step: number }
  /** A worker not back within `workerReturnMs`: restarted again, skipped, or waited for again. */
  | { readonly kind: "worker-return"; readonly step: number; readonly baseline: Baseline }
  | { readonly kind: "retry-restart"; readonly step: number; readonly baseline: Baseline | null }
  /** A failed canary soak before `step`: roll the canary back, continue the rollout, or abort. */
  | { readonly kind: "canary"; readonly step: number };

export type RolloutResult = "succeeded" | "aborted" | "failed";

/** A rollout's settings, every default filled in (`resolvePlanPolicy`, `resolveGatePolicy`) before they enter core. */
export interface RolloutSettings {
  readonly planPolicy: ResolvedPlanPolicy;
  readonly gatePolicy: ResolvedGatePolicy;
  readonly pollIntervalMs: number;
  readonly delayMs: number;
  readonly sessionTimeoutMs: number;
  readonly expectedRestartMs: number;
  /**
   * How long to wait for a restarted worker to come back before asking whether to restart it again, continue without
   * it or abort (`gate.workerReturnMs`); null: derived from the restart time learned so far (`workerReturnTimeoutMs`).
   */
  readonly workerReturnMs: number | null;
  /** The canary soak after the first upgraded worker (`canary.*`); absent or null: no soak. */
  readonly canary?: CanarySettings | null;
}

export interface RolloutState {
  readonly v: (typeof READABLE_STATE_VERSIONS)[number];
  readonly jobId: string;
  readonly cluster: string;
  readonly target: RolloutTarget;
  readonly image: string | null;
  readonly requestedBy: string;
  readonly startedAt: number;
  readonly updatedAt: number;
  readonly finishedAt: number | null;
  readonly settings: RolloutSettings;
  readonly phase: Phase;
  readonly plan: Plan | null;
  readonly steps: readonly StepRecord[];
  readonly freeze: FreezeSnapshot | null;
  readonly approvals: readonly ApprovalRecord[];
  /** Approval kinds granted for a step (so an eager window is asked once, when it opens). */
  readonly granted: readonly { readonly kind: ApprovalKind; readonly step: number }[];
  /** A pause or abort asked while a step was in flight: applied before the next restart. */
  readonly pendingControl: {
    readonly action: "pause" | "abort";
    readonly by: string;
    readonly at: number;
  } | null;
  readonly track: DisruptionTrack;
  /** Incremented to make approval ids unique. */
  readonly seq: number;
  /**
   * Steps restarted back to back with one gate at the end: a pace window (followers inside one scheduled-delay window,
   * `deadline` = when their held tasks come back) or an eager window (the group is stop-the-world until its last old
   * worker is gone, so it is crossed promptly; no deadline). The snapshot before the window's first stop is the gate's
   * baseline at its end.
   */
  readonly openWindow: {
    readonly key: WindowKey;
    readonly snapshot: ClusterSnapshot;
    readonly deadline: number | null;
    /** The tasks' data flow when the window opened (its gate's data-flow baseline). */
    readonly flow: BaselineFlow | null;
  } | null;
  /** Each task's data flow from the per-task metrics, folded from every read (`trackFlow`). */
  readonly flow: FlowTrack;
  /** What each read of the cluster saw, oldest first, thinned as it grows (`recordTimeline`): the rollout's story in time. */
  readonly timeline: readonly TimelinePoint[];
  /** The canary soak: begun once the first worker settled on the target (absent: not begun, or no soak). */
  readonly canary?: CanaryTrack;
  /**
   * Set when the job store lost this rollout's record and a replica wrote it back as it last saw it: the checkpoint
   * may be older than what the rollout did meanwhile (a worker it restarted after that checkpoint is found already
   * restarted). When (epoch ms), and the time of the checkpoint written back (its `updatedAt`).
   */
  readonly recordRestored?: { readonly at: number; readonly checkpointAt: number | null };
}

/** One read of the cluster, for the timeline. */
export interface TimelinePoint {
  readonly at: number;
  /** Tasks not RUNNING on a live worker. */
  readonly down: number;
  /** Tasks that flowed before the step and moved no data since the read before; null when data flow is not visible. */
  readonly notFlowing: number | null;
  readonly total: number;
}
