import type { Plan } from "../plan/plan-types.js";
import type { GateReason } from "../settle/settle-types.js";
import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";
import type { ApprovalRecord, Decision, PendingApproval } from "./approval-types.js";
import type { CanaryFigures } from "./canary-types.js";
import type { FinishReason, ReorderReason, SkipReason } from "./rollout-reasons.js";
import type {
  RolloutResult,
  RolloutState,
  StepDataFlow,
  StepExactlyOnce,
  StepMeasurements,
} from "./rollout-state.js";

/** What goes into `decide` (inputs) and what comes out of it (events to report, effects for the runner). */

/** What happened, fed into `decide`. */
export type RolloutInput =
  | { readonly kind: "cluster-read"; readonly now: number; readonly snapshot: ClusterSnapshot }
  | {
      readonly kind: "restart-accepted";
      readonly now: number;
      readonly step: number;
      readonly detail: string;
      /** Reads of the cluster the runner made while the executor worked (where data flow is visible), oldest first. */
      readonly reads?: readonly ClusterSnapshot[];
    }
  | {
      readonly kind: "restart-failed";
      readonly now: number;
      readonly step: number;
      readonly message: string;
      /** False when the executor refused before anything ran. */
      readonly mayHaveRun: boolean;
      readonly reads?: readonly ClusterSnapshot[];
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
  /**
   * The run's time limit (`limitMs`, `run --timeout`) has passed. The runner feeds it between effects, never while the
   * executor restarts a worker; in `restarting` it stands for a restart that was not sent.
   */
  | { readonly kind: "time-limit-reached"; readonly now: number; readonly limitMs: number }
  /** What a `probe-worker` saw of the restarted worker alone (a runner without a probe sends `cluster-read`). */
  | { readonly kind: "worker-probed"; readonly now: number; readonly worker: WorkerSnapshot };

/** Notable happenings, for the Slack thread, `run` output and the audit log (past tense). */
export type RolloutEvent =
  | { readonly kind: "rollout-planned"; readonly plan: Plan }
  /** The workers' metrics have no per-task series (`workers`: those without): the gate judges by statuses only. */
  | { readonly kind: "data-flow-unseen"; readonly workers: readonly string[] }
  | { readonly kind: "step-started"; readonly step: number; readonly worker: string }
  | {
      readonly kind: "restart-issued";
      readonly step: number;
      readonly worker: string;
      readonly detail: string;
    }
  | {
      /** Pace `window`: the remaining windows were planned again with the restart time measured so far. */
      readonly kind: "restart-learned";
      readonly step: number;
      readonly declaredMs: number;
      readonly learnedMs: number;
      /** How many restarts the learned value comes from. */
      readonly samples: number;
      readonly followersPerWindowBefore: number;
      readonly followersPerWindowAfter: number;
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
      readonly dataFlow: StepDataFlow | null;
      /** The step's exactly-once tasks (absent: none). */
      readonly exactlyOnce?: StepExactlyOnce;
    }
  | {
      readonly kind: "step-skipped";
      readonly step: number;
      readonly worker: string;
      readonly reason: SkipReason;
    }
  | {
      readonly kind: "step-reordered";
      readonly step: number;
      readonly worker: string;
      readonly reason: ReorderReason;
    }
  /** The canary (the first worker on the target) runs beside the old workers for `soakMs` before the next step. */
  | {
      readonly kind: "canary-soaking";
      readonly step: number;
      readonly worker: string;
      readonly soakMs: number;
    }
  | {
      readonly kind: "canary-passed";
      readonly step: number;
      readonly worker: string;
      readonly figures: CanaryFigures;
    }
  | { readonly kind: "approval-requested"; readonly approval: PendingApproval }
  | { readonly kind: "approval-decided"; readonly approval: ApprovalRecord }
  | { readonly kind: "rollout-paused"; readonly by: string; readonly step: number }
  | { readonly kind: "rollout-resumed"; readonly by: string; readonly step: number }
  | { readonly kind: "rollout-taken-over"; readonly owner: string }
  | { readonly kind: "rollout-finished"; readonly result: RolloutResult; readonly reason: FinishReason }
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
  /** `POST /connectors/{c}/tasks/{t}/restart` for each task ("connector/N"), then a read of the cluster. */
  | { readonly kind: "restart-tasks"; readonly tasks: readonly string[] }
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
