import type { GateReason, TaskStateRef } from "../settle/settle-types.js";
import type { ApprovalKind } from "./approval-types.js";
import type { CanaryFinding } from "./canary-types.js";

/**
 * Why a rollout finished, why a step was skipped or moved, what a step's note says: as facts. src/wording/reason-text.ts
 * words them, for Slack and the terminal alike; core never does.
 */

/** A connector (`task` null) or a task of the first read that has not started yet, with its state. */
export interface NotStarted {
  readonly connector: string;
  readonly task: number | null;
  readonly state: string;
}

/** Why the first read of the cluster cannot be the rollout's baseline. */
export type UnsettledStart =
  /** No connectors, while some worker's metrics show assigned work or no metrics vouch for an empty cluster. */
  | { readonly kind: "no-connectors-unconfirmed" }
  | { readonly kind: "not-started"; readonly items: readonly NotStarted[] }
  | { readonly kind: "rebalancing"; readonly workers: readonly string[] };

export type FinishReason =
  /** Succeeded: every step settled (or was already on the target). */
  | { readonly kind: "all-settled" }
  /** Succeeded at planning: no worker needed a step. */
  | { readonly kind: "nothing-to-do" }
  /** Failed: every worker was restarted, but these were continued past their gate by a person. */
  | { readonly kind: "continued-unsettled"; readonly workers: readonly string[] }
  /**
   * Failed: no step was left, but these tasks were still not running on a live worker `waitedMs` after that
   * (`gate.failAfterMs`); a rerun that finds every worker restarted already waits here for the last restart's tasks.
   */
  | { readonly kind: "unsettled-at-end"; readonly tasks: readonly TaskStateRef[]; readonly waitedMs: number }
  /**
   * Failed: the canary did worse than the old workers during its soak (`findings`), and a person chose to roll it
   * back: it was returned to `from`; the workers after it were not restarted.
   */
  | {
      readonly kind: "canary-rolled-back";
      readonly worker: string;
      readonly from: string;
      readonly findings: readonly CanaryFinding[];
      /** Every worker returned, newest move first (the canary, and any that crossed with it in a window). */
      readonly rolledBack: readonly string[];
      readonly notRestarted: readonly string[];
    }
  /** Failed at planning: no connector status could be read (`error`: the reader's, null when no worker answered). */
  | { readonly kind: "connectors-unreadable"; readonly cluster: string; readonly error: string | null }
  /** Failed at planning: the cluster did not settle within `waitedMs` of the start. */
  | { readonly kind: "unsettled-at-start"; readonly unsettled: UnsettledStart; readonly waitedMs: number }
  /** Failed before a restart: the step's worker is not in the read (no baseline). */
  | { readonly kind: "worker-not-found"; readonly worker: string; readonly cluster: string }
  /** Aborted by a person while nothing was in flight. */
  | { readonly kind: "aborted"; readonly by: string }
  /** Aborted before the step's restart (asked while the previous one was in flight, or at the last moment). */
  | { readonly kind: "aborted-before-step"; readonly by: string; readonly step: number }
  /** Aborted while the gate of a worker that is back had not passed (`worker` null: the step was not found). */
  | {
      readonly kind: "aborted-while-settling";
      readonly by: string;
      readonly worker: string | null;
      readonly gate: readonly GateReason[];
    }
  /** Aborted as the decision at a prompt. */
  | { readonly kind: "aborted-at-prompt"; readonly by: string; readonly approval: ApprovalKind }
  /**
   * Failed: no step is left, but these workers did not come back and a person went on without them (`notBack`);
   * `continued`: those continued past their gate, as in `continued-unsettled`.
   */
  | {
      readonly kind: "not-brought-back";
      readonly notBack: readonly string[];
      readonly continued: readonly string[];
    }
  /**
   * Aborted when the run's time limit (`run --timeout`, `limitMs`) passed, at a safe point (never while the executor
   * restarts a worker): the step in flight and where it stood, and the workers never restarted.
   */
  | {
      readonly kind: "timed-out";
      readonly limitMs: number;
      readonly inFlight: {
        readonly worker: string;
        readonly stage: "not-back" | "settling" | "restart-failed";
      } | null;
      readonly notRestarted: readonly string[];
    };

/**
 * Why a step was skipped: its worker needs no restart (the cluster says it is done already), or it did not come back
 * and a person went on without it.
 */
export type SkipReason =
  /**
   * Upgrade: it reports the target version. `afterRecordLost`: found so after the rollout's record was written back
   * (`recordRestored`): its own lost part may have upgraded it.
   */
  | { readonly kind: "on-target"; readonly version: string; readonly afterRecordLost?: true }
  /** Plain restart: its process (app-info `start-time-ms`) started since the rollout began; `afterRecordLost` as above. */
  | { readonly kind: "restarted-since-start"; readonly startedAt: number; readonly afterRecordLost?: true }
  /** Restarted, not back after `waitedMs`; `by` chose to continue without it (`continue-without`). */
  | { readonly kind: "not-back"; readonly by: string; readonly waitedMs: number };

/** Why a step moved: to the end (the leader last), or to now (pace `rotate`: the leader first). */
export type ReorderReason = { readonly kind: "leader-now" } | { readonly kind: "leader-first" };

/** A step's note: why it was skipped, continued or failed, or how its window went. */
export type StepNote =
  | SkipReason
  /** Continued past its gate by a person. */
  | { readonly kind: "continued"; readonly by: string }
  /** The executor's error, verbatim. */
  | { readonly kind: "restart-failed"; readonly error: string }
  /** Back inside its pace window; the gate waits for the window's last worker. */
  | { readonly kind: "crossed-in-window" }
  /** The deadline cut its pace window short: it ends here, `remaining` workers are grouped again. */
  | { readonly kind: "window-cut-short"; readonly remaining: number }
  /** The step that returns a failed canary to the version it left. */
  | { readonly kind: "canary-rollback"; readonly version: string }
  /** Not restarted: the canary failed its soak and was rolled back. */
  | { readonly kind: "after-canary-rollback"; readonly worker: string };
