import type { Plan, ResolvedPlanPolicy, RolloutTarget } from "../plan/plan-types.js";
import type { Baseline, GateReason, ResolvedGatePolicy } from "../settle/settle-types.js";
import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";
import type { WindowKey } from "./window-key.js";

/**
 * The rollout state machine's vocabulary. `decide(state, input)` (decide.ts) is pure: it returns the next state and
 * the effects the runner must perform. The state is the checkpoint: it is saved (fenced) after every transition, so
 * another replica can resume from it.
 */
export const ROLLOUT_STATE_VERSION = 1;

export type Decision = "approve" | "abort" | "keep-waiting" | "continue";

/**
 * Why a person is asked:
 * - `blocking-findings`: the plan has block findings (FAILED tasks before the start, unreachable workers…);
 * - `eager-window`: the next step runs while the group negotiates eager (stop-the-world rebalances);
 * - `slow-gate`: the settle gate is slower than expected (delay included);
 * - `gate-failed`: the gate saw something wrong (a new FAILED task, a missing connector);
 * - `config-changed`: a connector's config or task count changed since the start (config freeze);
 * - `restart-failed`: the executor reported a failure;
 * - `restart-unconfirmed`: after a takeover, a restart was issued but cannot be confirmed.
 */
export type ApprovalKind =
  | "blocking-findings"
  | "eager-window"
  | "slow-gate"
  | "gate-failed"
  | "config-changed"
  | "restart-failed"
  | "restart-unconfirmed";

export interface PendingApproval {
  readonly id: string;
  readonly kind: ApprovalKind;
  /** Step number (from 1) the approval is about, or null for the whole rollout. */
  readonly step: number | null;
  /** One sentence shown as the prompt's title. */
  readonly prompt: string;
  /** Lines of detail (findings, gate reasons, changed connectors). */
  readonly details: readonly string[];
  /** The decisions offered, first = the "go" decision. */
  readonly options: readonly Decision[];
  readonly askedAt: number;
}

export interface ApprovalRecord {
  readonly id: string;
  readonly kind: ApprovalKind;
  readonly step: number | null;
  readonly decision: Decision;
  readonly by: string;
  readonly at: number;
}

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
  readonly note: string | null;
  readonly measurements: StepMeasurements;
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
  /** The group ran eager at the last poll (absent in checkpoints written before this field existed). */
  readonly eager?: boolean;
}

export type Phase =
  | { readonly kind: "planning" }
  | { readonly kind: "awaiting-approval"; readonly approval: PendingApproval; readonly resume: ResumePoint }
  | {
      readonly kind: "before-step";
      readonly step: number;
      /** After a failed or unconfirmed restart is retried: the baseline from before the first attempt. */
      readonly retryBaseline?: Baseline | null;
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
      readonly polls: readonly ClusterSnapshot[];
      /** When to ask again whether to keep waiting (after a slow-gate prompt). */
      readonly askSlowAfter: number | null;
    }
  | { readonly kind: "paused"; readonly step: number; readonly by: string; readonly at: number }
  | { readonly kind: "finished"; readonly result: RolloutResult; readonly reason: string };

/** Where to go once an approval is granted. */
export type ResumePoint =
  | { readonly kind: "before-step"; readonly step: number; readonly approved: ApprovalKind }
  | { readonly kind: "settling"; readonly step: number; readonly baseline: Baseline }
  | { readonly kind: "step-done"; readonly step: number }
  | { readonly kind: "retry-restart"; readonly step: number; readonly baseline: Baseline | null };

export type RolloutResult = "succeeded" | "aborted" | "failed";

/** A rollout's settings, every default filled in (`resolveRolloutSettings`, where settings enter core). */
export interface RolloutSettings {
  readonly planPolicy: ResolvedPlanPolicy;
  readonly gatePolicy: ResolvedGatePolicy;
  readonly pollIntervalMs: number;
  readonly delayMs: number;
  readonly sessionTimeoutMs: number;
  readonly expectedRestartMs: number;
  /** How long to wait for a restarted worker to answer on the target version before asking. */
  readonly backTimeoutMs: number;
}

export interface RolloutState {
  readonly v: typeof ROLLOUT_STATE_VERSION;
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
  } | null;
}

/** What happened, fed into `decide`. */
export type RolloutInput =
  | { readonly kind: "cluster-read"; readonly now: number; readonly snapshot: ClusterSnapshot }
  | {
      readonly kind: "restart-accepted";
      readonly now: number;
      readonly step: number;
      readonly detail: string;
    }
  | {
      readonly kind: "restart-failed";
      readonly now: number;
      readonly step: number;
      readonly message: string;
      /** False when the executor refused before anything ran. */
      readonly mayHaveRun: boolean;
    }
  | {
      readonly kind: "approval-decided";
      readonly now: number;
      readonly approvalId: string;
      readonly decision: Decision;
      readonly by: string;
    }
  | {
      readonly kind: "control-requested";
      readonly now: number;
      readonly action: "pause" | "resume" | "abort";
      readonly by: string;
    }
  | { readonly kind: "taken-over"; readonly now: number; readonly owner: string }
  /** What a `probe-worker` saw of the restarted worker alone (a runner without a probe sends `cluster-read`). */
  | { readonly kind: "worker-probed"; readonly now: number; readonly worker: WorkerSnapshot };

/** Notable happenings, for the Slack thread, `run` output and the audit log (past tense). */
export type RolloutEvent =
  | { readonly kind: "rollout-planned"; readonly plan: Plan }
  | { readonly kind: "step-started"; readonly step: number; readonly worker: string }
  | {
      readonly kind: "restart-issued";
      readonly step: number;
      readonly worker: string;
      readonly detail: string;
    }
  | {
      readonly kind: "worker-back";
      readonly step: number;
      readonly worker: string;
      readonly version: string | null;
      readonly restartMs: number;
    }
  | {
      readonly kind: "gate-waiting";
      readonly step: number;
      readonly worker: string;
      readonly reasons: readonly GateReason[];
    }
  | {
      readonly kind: "step-settled";
      readonly step: number;
      readonly worker: string;
      readonly measurements: StepMeasurements;
    }
  | { readonly kind: "step-skipped"; readonly step: number; readonly worker: string; readonly reason: string }
  | {
      readonly kind: "step-reordered";
      readonly step: number;
      readonly worker: string;
      readonly reason: string;
    }
  | { readonly kind: "approval-requested"; readonly approval: PendingApproval }
  | { readonly kind: "approval-decided"; readonly approval: ApprovalRecord }
  | { readonly kind: "rollout-paused"; readonly by: string; readonly step: number }
  | { readonly kind: "rollout-resumed"; readonly by: string; readonly step: number }
  | { readonly kind: "rollout-taken-over"; readonly owner: string }
  | { readonly kind: "rollout-finished"; readonly result: RolloutResult; readonly reason: string }
  /**
   * Emitted by the runner (not `decide`): the job store stopped answering; nothing is restarted until it answers
   * again (every restart needs a fenced checkpoint first). `since` is wall-clock epoch ms; `error` the real cause.
   */
  | { readonly kind: "store-unreachable"; readonly since: number; readonly error: string }
  /** The job store answers again after `downMs`; the rollout continues where it was. */
  | { readonly kind: "store-recovered"; readonly since: number; readonly downMs: number }
  /**
   * Emitted by the runner: it stopped without finishing and issues nothing more. `why`: `lease-lost` (the lease
   * expired while Redis was away, or the lock was released or taken over), `record-lost` (Redis lost the job: a rerun
   * goes by the cluster's facts), `shutdown` (this process stops; the checkpoint is kept for a takeover or a rerun).
   */
  | {
      readonly kind: "rollout-interrupted";
      readonly why: "lease-lost" | "record-lost" | "shutdown";
      readonly detail: string;
    };

/** What the runner must do. Exactly one "next action" (the last effect) follows any `emit`s. */
export type RolloutEffect =
  | { readonly kind: "emit"; readonly event: RolloutEvent }
  | { readonly kind: "read-cluster"; readonly afterMs: number }
  /**
   * Look at one worker only (its `GET /`, and its metrics when `metrics`): how a restarted worker is watched until it
   * is back, instead of reading the whole cluster. Answered by `worker-probed` (or by `cluster-read`).
   */
  | {
      readonly kind: "probe-worker";
      readonly worker: string;
      readonly afterMs: number;
      readonly metrics: boolean;
    }
  | {
      readonly kind: "restart-worker";
      readonly step: number;
      readonly stepId: string;
      readonly worker: string;
    }
  | { readonly kind: "await-approval"; readonly approval: PendingApproval }
  | { readonly kind: "await-resume" }
  | { readonly kind: "finish"; readonly result: RolloutResult };

export interface Transition {
  readonly state: RolloutState;
  readonly effects: readonly RolloutEffect[];
}
