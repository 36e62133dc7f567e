import type { ConnectProtocol, ConnectProtocolSetting } from "../protocol.js";
import type { ExactlyOnceSourceSupport } from "../snapshot.js";

/** What the rollout must achieve: every worker restarted (and, for an upgrade, reporting `version`). */
export interface RolloutTarget {
  readonly kind: "upgrade" | "restart";
  /** What workers must report afterwards, e.g. "3.7.1" (exactly) or "3.7" (any 3.7.x). */
  readonly version: string;
  /** The user's argument as typed, e.g. "v3.7" or "restart". */
  readonly argument: string;
  /**
   * Plain restart only: a worker whose process started at or after this time (epoch ms) counts as restarted and is
   * skipped. Default: the rollout's start. A rerun after the job store lost its data passes the lost rollout's start.
   */
  readonly since?: number;
  /**
   * A rollback (an upgrade to the version the workers left): only these workers, in this order (the newest move
   * first), each returned to `version`; the others are left as they are, and no step is moved for the leader.
   */
  readonly rollback?: RollbackTarget;
}

/** Which rollout a rollback undoes and the workers it moved, newest move first. */
export interface RollbackTarget {
  /** The job id of the rollout rolled back. */
  readonly of: string;
  /** The version that rollout moved them to. */
  readonly from: string;
  readonly workers: readonly string[];
}

/**
 * `safe`: one worker at a time, followers first, the leader last. `window`: followers restarted back to back inside
 * one scheduled-delay window. `rotate`: each step restarts the worker that leads at that moment, so that a new leader,
 * which remembers no assignment, hands its tasks out at once instead of holding them for the delay.
 */
export const ROLLOUT_PACES = ["safe", "window", "rotate"] as const;
export type RolloutPace = (typeof ROLLOUT_PACES)[number];

export function isRolloutPace(value: unknown): value is RolloutPace {
  return typeof value === "string" && (ROLLOUT_PACES as readonly string[]).includes(value);
}

/** What the planner needs from the configuration. Missing optional values take the defaults in `resolvePlanPolicy`. */
export interface PlanPolicy {
  /** Declared `connect.protocol` of the workers (null: the version's default). */
  readonly connectProtocol: ConnectProtocolSetting;
  /** Per-worker override of `connectProtocol`, by worker name. */
  readonly connectProtocolByWorker?: Readonly<Record<string, ConnectProtocolSetting>>;
  /** Declared `scheduled.rebalance.max.delay.ms`; null when not declared (the Connect default, 300000, is assumed). */
  readonly scheduledRebalanceMaxDelayMs: number | null;
  /** How long one worker restart is expected to take (stop → REST up and rejoined). */
  readonly expectedRestartMs: number;
  readonly maxTasksPerWorker?: number | null;
  /** Declared worker `exactly.once.source.support` (used when the snapshot does not say). */
  readonly exactlyOnceSourceSupport?: ExactlyOnceSourceSupport | null;
  readonly pace?: RolloutPace;
  /** Pace `window`: an optional cap on the share of all tasks held at once (default 1: never binds). */
  readonly windowMaxHeldShare?: number | undefined;
  /**
   * Pace `window`: the floor of the margin by which a window's last follower must be back before the deadline; the
   * margin is `restartJitter` × the expected restart plus this floor (default 5000).
   */
  readonly windowMarginFloorMs?: number | undefined;
  /** Relative jitter of a restart, e.g. 0.1 = ±10 % (default 0.1): part of the window margin. */
  readonly restartJitter?: number | undefined;
  /** Pace `window`: how often the restarted worker alone is probed inside a window (default 1000). */
  readonly windowProbeIntervalMs?: number | undefined;
  /**
   * Pace `window`: the leader, still last and its own step and gate, is restarted as the closing member of the last
   * window, once its followers are back; the new leader hands their held tasks out at once (default true).
   */
  readonly leaderClosesLastWindow?: boolean | undefined;
  /** `session.timeout.ms` (default 10000). */
  readonly sessionTimeoutMs?: number;
  /**
   * What the settle gate costs after a step once the cluster is quiet: its quiet period plus its consecutive identical
   * polls (default 30000, the allowance before the gate's settings were known). Wall-time estimates use it.
   */
  readonly settleAllowanceMs?: number;
}

export interface ResolvedPlanPolicy {
  readonly connectProtocol: ConnectProtocolSetting;
  readonly connectProtocolByWorker: Readonly<Record<string, ConnectProtocolSetting>>;
  readonly scheduledRebalanceMaxDelayMs: number | null;
  readonly expectedRestartMs: number;
  readonly maxTasksPerWorker: number | null;
  readonly exactlyOnceSourceSupport: ExactlyOnceSourceSupport | null;
  readonly pace: RolloutPace;
  readonly windowMaxHeldShare: number;
  readonly windowMarginFloorMs: number;
  readonly restartJitter: number;
  readonly windowProbeIntervalMs: number;
  readonly leaderClosesLastWindow: boolean;
  readonly sessionTimeoutMs: number;
  readonly settleAllowanceMs: number;
}

export type FindingSeverity = "info" | "warn" | "block";

/** A preflight observation. `code` is kebab-case and stable; `message` is for people. */
export interface Finding {
  readonly severity: FindingSeverity;
  readonly code: string;
  readonly message: string;
}

/** Inclusive range of step numbers (from 1). */
export interface StepWindow {
  readonly fromStep: number;
  readonly toStep: number;
}

/**
 * How a step disrupts tasks:
 * - `held`: a follower back within the scheduled delay; its tasks wait for the deadline and come back to it;
 * - `reassigned`: a follower whose restart outlasts the delay (or delay 0): tasks go to survivors, part move back;
 * - `leader`: the leader; its tasks are reassigned at once, then part move back when it returns;
 * - `eager`: the group runs eager during the step: every task stops at each rebalance.
 */
export type StepDisruption = "held" | "reassigned" | "leader" | "eager";

export interface PlanStep {
  /** From 1, in order. */
  readonly step: number;
  readonly worker: string;
  readonly workerId: string;
  readonly isLeader: boolean;
  readonly fromVersion: string | null;
  readonly toVersion: string;
  /** Tasks the worker holds now (metrics, else statuses). */
  readonly tasks: number;
  /** Group protocol before the step, while the worker is out, and after it is back (null: empty group). */
  readonly protocolBefore: ConnectProtocol | null;
  readonly protocolDuring: ConnectProtocol | null;
  readonly protocolAfter: ConnectProtocol | null;
  readonly disruption: StepDisruption;
  /** How long the longest-affected task is down during the step. */
  readonly predictedDowntimeMs: number;
  /** Σ over tasks of downtime (task·ms). */
  readonly predictedTaskDowntimeMs: number;
  /** Tasks started on a different worker than before. */
  readonly predictedMoves: number;
  /** RUNNING tasks stopped while their own worker stays up (eager rebalances). */
  readonly predictedInterruptions: number;
  /** Wall time of the step including the settle allowance. */
  readonly predictedWallMs: number;
  /** Index into `Plan.windows` when pace `window` groups this step with others. */
  readonly window: number | null;
  readonly reasons: readonly string[];
}

export interface SkippedWorker {
  readonly worker: string;
  readonly reason: string;
}

export type LeaderResolution =
  | { readonly kind: "known"; readonly worker: string; readonly url: string }
  | { readonly kind: "unknown"; readonly reason: string };

export interface DelayAnalysis {
  readonly delayMs: number;
  readonly source: "declared" | "default";
  readonly expectedRestartMs: number;
  /** A better `scheduled.rebalance.max.delay.ms` for this rollout, when the configured one is far off. */
  readonly recommendedDelayMs: number | null;
  readonly restartFitsInDelay: boolean;
}

/** Consecutive followers restarted inside one scheduled-delay window (pace `window`). */
export interface PaceWindow {
  readonly steps: readonly number[];
  /** Share (0..1) of all tasks held at once at the end of the window. */
  readonly predictedHeldShare: number;
  /** Time from the window's first stop to when the held tasks come back (the deadline, or the leader's stop). */
  readonly predictedDeadlineMs: number;
  /** The leader closes this window: its stop, not the deadline, hands the held tasks out. */
  readonly closedByLeader?: boolean;
}

export interface PlanTotals {
  readonly steps: number;
  readonly predictedMoves: number;
  readonly predictedInterruptions: number;
  readonly predictedTaskDowntimeMs: number;
  readonly predictedMaxDowntimeMs: number;
  readonly predictedWallMs: { readonly safe: number; readonly window: number };
  /**
   * What each pace (safe, window, rotate: each planned in its own order) is expected to cost on this cluster, and the
   * one with the least task downtime (ties: the shorter wall). Absent from plans checkpointed by builds that did not
   * forecast paces; no rotate entry when the leader is unknown.
   */
  readonly paces?: readonly PaceForecast[];
  readonly recommendedPace?: RolloutPace;
}

/** One pace's expected cost: task downtime summed over tasks, wall time, the largest share of tasks down at once. */
export interface PaceForecast {
  readonly pace: RolloutPace;
  readonly taskDowntimeMs: number;
  readonly wallMs: number;
  readonly peakShare: number;
  /** Pace `rotate`: how many steps are expected to restart the leader of the moment (the rest are followers). */
  readonly expectedLeaderSteps?: number;
}

/**
 * What the plan knows of data flow from the per-task metrics: which tasks flow and which are idle (two reads a
 * window apart), only that it is visible (one read), or that it is not (`workers`: those without per-task series).
 */
export type PlanDataFlow =
  | { readonly kind: "visible"; readonly flowing: number; readonly idle: readonly string[] }
  | { readonly kind: "learning" }
  | { readonly kind: "unseen"; readonly workers: readonly string[] };

export interface Plan {
  readonly cluster: string;
  readonly target: RolloutTarget;
  /** `readAt` of the snapshot the plan was made from. */
  readonly plannedAt: number;
  readonly pace: RolloutPace;
  readonly leader: LeaderResolution;
  readonly steps: readonly PlanStep[];
  readonly skipped: readonly SkippedWorker[];
  readonly eagerWindows: readonly StepWindow[];
  readonly compatibleWindows: readonly StepWindow[];
  readonly windows: readonly PaceWindow[];
  readonly delay: DelayAnalysis;
  readonly findings: readonly Finding[];
  readonly dataFlow: PlanDataFlow;
  readonly totals: PlanTotals;
  /** True when a finding is `block` or the plan has an eager window: a person must approve. */
  readonly needsApproval: boolean;
  readonly notes: readonly string[];
}
