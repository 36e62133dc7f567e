import type { Finding } from "../plan/plan-types.js";
import type { GateReason } from "../settle/settle-types.js";
import type { CanaryFigures, CanaryFinding } from "./canary-types.js";

/** Why a person is asked and what they decided: the approvals of the rollout state machine. */

/**
 * `restart-again` and `continue-without` answer a worker that did not come back (`worker-not-back`): the restart is
 * issued again through the executor, or the step is skipped with the worker left as it is.
 */
export type Decision =
  | "approve"
  | "abort"
  | "keep-waiting"
  | "continue"
  | "restart-tasks"
  | "restart-again"
  | "continue-without"
  | "rollback";

/**
 * Why a person is asked:
 * - `blocking-findings`: the plan has block findings (FAILED tasks before the start, unreachable workers…);
 * - `eager-window`: the next step runs while the group negotiates eager (stop-the-world rebalances);
 * - `slow-gate`: the settle gate is slower than expected (delay included);
 * - `worker-not-back`: a restarted worker has not come back within `gate.workerReturnMs`;
 * - `gate-failed`: the gate saw something wrong (a new FAILED task, a missing connector);
 * - `config-changed`: a connector's config or task count changed since the start (config freeze);
 * - `restart-failed`: the executor reported a failure;
 * - `restart-unconfirmed`: after a takeover, a restart was issued but cannot be confirmed;
 * - `task-restart`: the gate saw exactly-once tasks FAILED by a fencing error (their start could not fence);
 * - `canary`: the first upgraded worker's tasks did worse than the old workers' during the soak (`rollback` returns
 *   it to the version it left, `continue` goes on with the rollout).
 */
export type ApprovalKind =
  | "blocking-findings"
  | "eager-window"
  | "slow-gate"
  | "worker-not-back"
  | "gate-failed"
  | "config-changed"
  | "restart-failed"
  | "restart-unconfirmed"
  | "task-restart"
  | "recently-started"
  | "canary";

/** What the cluster showed of a worker when a person was asked about it. */
export type WorkerSeen =
  | { readonly reachable: true; readonly version: string | null }
  | { readonly reachable: false; readonly error: string | null };

/** One difference between the config freeze and the cluster now. */
export type FreezeChange =
  | { readonly kind: "deleted"; readonly connector: string }
  | {
      readonly kind: "task-count";
      readonly connector: string;
      readonly before: number;
      readonly after: number;
    }
  | { readonly kind: "config"; readonly connector: string }
  | { readonly kind: "created"; readonly connector: string };

/**
 * What a prompt is about, as facts: src/wording/approval-text.ts words them, core never does. A `slow-gate` approval
 * is about a gate slower than expected (`gate-slow`).
 */
export type ApprovalFacts =
  | { readonly kind: "blocking-findings"; readonly cluster: string; readonly findings: readonly Finding[] }
  | { readonly kind: "eager-window"; readonly cluster: string; readonly worker: string }
  | {
      readonly kind: "worker-not-back";
      readonly worker: string;
      readonly targetVersion: string;
      /** Since the restart (or the last keep-waiting) was accepted. */
      readonly waitedMs: number;
      readonly seen: WorkerSeen;
      /** Restarts issued for this step so far (2 after one restart-again). */
      readonly attempts: number;
    }
  | {
      readonly kind: "gate-slow";
      readonly worker: string;
      /** Since the restart was issued, the scheduled delay included. */
      readonly elapsedMs: number;
      readonly reasons: readonly GateReason[];
    }
  | { readonly kind: "gate-failed"; readonly worker: string; readonly reasons: readonly GateReason[] }
  | { readonly kind: "config-changed"; readonly cluster: string; readonly changes: readonly FreezeChange[] }
  | {
      readonly kind: "restart-failed";
      readonly worker: string;
      readonly error: string;
      /** False when the executor refused before anything ran. */
      readonly mayHaveRun: boolean;
    }
  | { readonly kind: "restart-unconfirmed"; readonly worker: string; readonly seen: WorkerSeen }
  | {
      readonly kind: "task-restart";
      readonly worker: string;
      /** The tasks FAILED by a fencing error ("connector/N"), where, and the first line of their trace. */
      readonly tasks: readonly {
        readonly task: string;
        readonly workerId: string | null;
        readonly trace: string | null;
      }[];
      /** The gate's other reasons at the time. */
      readonly reasons: readonly GateReason[];
    }
  | {
      /**
       * A plain restart without `since` found workers whose process started long after the rest (an interrupted
       * rollout whose record is lost?): restart them too (`approve`), or count them as restarted (`continue`).
       */
      readonly kind: "recently-started";
      readonly cluster: string;
      readonly workers: readonly { readonly worker: string; readonly startedAt: number }[];
      /** When the other workers' processes started (the latest of them). */
      readonly othersStartedAt: number;
      readonly now: number;
    }
  | {
      readonly kind: "canary";
      readonly worker: string;
      /** The version it runs now (the target) and the one it left. */
      readonly version: string;
      readonly from: string | null;
      readonly findings: readonly CanaryFinding[];
      readonly figures: CanaryFigures | null;
    };

const KIND_OF_FACTS: Readonly<Record<ApprovalFacts["kind"], ApprovalKind>> = {
  "blocking-findings": "blocking-findings",
  "eager-window": "eager-window",
  "worker-not-back": "worker-not-back",
  "gate-slow": "slow-gate",
  "gate-failed": "gate-failed",
  "config-changed": "config-changed",
  "restart-failed": "restart-failed",
  "restart-unconfirmed": "restart-unconfirmed",
  "task-restart": "task-restart",
  "recently-started": "recently-started",
  canary: "canary",
};

/** The approval kind a prompt about these facts is (what `--approve` names and the decision options go by). */
export function approvalKindOf(facts: ApprovalFacts): ApprovalKind {
  return KIND_OF_FACTS[facts.kind];
}

/** An approval waiting for a decision, asked with facts (src/wording/ words them). */
export interface PendingApproval {
  readonly id: string;
  readonly kind: ApprovalKind;
  /** Step number (from 1) the approval is about, or null for the whole rollout. */
  readonly step: number | null;
  /** The decisions offered, first = the "go" decision. */
  readonly options: readonly Decision[];
  readonly askedAt: number;
  readonly facts: ApprovalFacts;
}

export interface ApprovalRecord {
  readonly id: string;
  readonly kind: ApprovalKind;
  readonly step: number | null;
  readonly decision: Decision;
  readonly by: string;
  readonly at: number;
}
