import type { Logger } from "pino";
import type { ClusterReader } from "../../connect/cluster-reader.js";
import type { Clock } from "../../core/clock.js";
import type { PendingApproval } from "../../core/rollout/approval-types.js";
import type { RolloutEvent } from "../../core/rollout/rollout-io.js";
import type { FinishReason, SkipReason } from "../../core/rollout/rollout-reasons.js";
import type { RolloutState } from "../../core/rollout/rollout-state.js";
import type { RestartTarget, WorkerRestarter } from "../../restart/worker-restarter.js";
import type { DecisionRecord, JobRecord } from "../store/job-record.js";
import type { RunnerStore } from "../store/store-roles.js";

/** How approval prompts get answered: by people through the store (chat), or by a policy (CLI flags, prompts). */
export interface ApprovalSource {
  wait(job: JobRecord, approval: PendingApproval, signal: AbortSignal): Promise<DecisionRecord>;
}

/**
 * How the audit trail words the facts core returns (src/wording/reason-text.ts, passed in by the composition root:
 * jobs words nothing itself).
 */
export interface AuditWording {
  finishReason(reason: FinishReason): string;
  skipReason(reason: SkipReason): string;
}

/** Everything the runner does I/O with. */
export interface RunnerDeps {
  readonly store: RunnerStore;
  readonly reader: ClusterReader;
  readonly restarter: WorkerRestarter;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly approvals: ApprovalSource;
  /** Worker addresses by name (what the executor needs). */
  readonly workers: ReadonlyMap<string, RestartTarget>;
  /** The image the cluster's `versions` give a version (a rollback step's), or null when it names none. */
  readonly imageFor?: (version: string) => string | null;
  readonly wording: AuditWording;
  /** Observers of events (the Slack thread reporter and Home tab, `connect-roll run`'s event lines). Must not throw or block. */
  readonly onEvent?: (event: RolloutEvent, state: RolloutState) => void;
  /** Interval at which a paused rollout re-reads its control state. Default: the poll interval. */
  readonly controlPollMs?: number;
  /** Backoff of store calls that fail while the lease is valid: first wait, doubled up to `maxMs`. */
  readonly storeRetry?: { readonly baseMs: number; readonly maxMs: number };
  /**
   * `run --timeout`: the rollout is stopped at the first safe point after `at` (on `clock`); `ms` is the limit as
   * given, for the report. Absent: no limit (the bot).
   */
  readonly timeLimit?: { readonly at: number; readonly ms: number };
}

export type RunOutcome =
  | { readonly kind: "finished"; readonly state: RolloutState }
  /** The lease was lost (expired, forced, taken over): this runner stopped without issuing further effects. */
  | { readonly kind: "lock-lost"; readonly state: RolloutState };
