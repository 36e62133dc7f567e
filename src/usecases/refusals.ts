import type { RollbackRefusal } from "../core/rollout/rollback-of.js";
import type { JobStatus, SlackThread } from "../jobs/store/job-record.js";

/**
 * Why a use-case said no, as facts (no wording: Slack's views and the terminal each say it their way). Each
 * use-case names the subset it can return, so a view's `switch` over it is exhaustive.
 */

/** A Slack command typed in a channel the cluster's access does not list. */
export interface ChannelNotAllowed {
  readonly kind: "channel-not-allowed";
  /** The channels it may be used in. */
  readonly channels: readonly string[];
}

export interface UnknownCluster {
  readonly kind: "unknown-cluster";
  readonly cluster: string;
  /** Every configured cluster, in configuration order (views pick the closest names). */
  readonly known: readonly string[];
}

export interface UnknownFleet {
  readonly kind: "unknown-fleet";
  readonly fleet: string;
  /** Every configured fleet, in configuration order. */
  readonly known: readonly string[];
}

/** The access lists do not allow this Slack user; `reason` is the authorizer's sentence. */
export interface NotAuthorized {
  readonly kind: "not-authorized";
  readonly reason: string;
}

/** The version argument cannot be used on this cluster (`resolveTarget`'s message). */
export interface BadVersion {
  readonly kind: "bad-version";
  readonly message: string;
}

/** `rollback`: the cluster's last rollout cannot be rolled back (`why` says what the record shows). */
export interface NoRollback {
  readonly kind: "no-rollback";
  readonly cluster: string;
  readonly why: RollbackRefusal;
}

export interface OutsideChangeWindow {
  readonly kind: "outside-change-window";
  readonly cluster: string;
  /** When the next window opens: "Sat 03:00 UTC", or "no opening in the configured windows". */
  readonly next: string;
  readonly nextMs: number | null;
}

export interface StoreUnreachable {
  readonly kind: "store-unreachable";
}

/** Who holds a cluster's lock, with what its job record adds. */
export interface LockFacts {
  readonly jobId: string;
  /** The replica or run holding the lease. */
  readonly owner: string;
  readonly since: number;
  /** Null when the holder's job record cannot be read. */
  readonly requestedBy: string | null;
  readonly thread: SlackThread | null;
}

export interface ClusterLocked {
  readonly kind: "locked";
  readonly cluster: string;
  /** Null when the lock was freed between the attempt and the read: another rollout just started or ended. */
  readonly holder: LockFacts | null;
}

export interface NoActiveRollout {
  readonly kind: "no-active-rollout";
  readonly cluster: string;
}

export interface RolloutFinished {
  readonly kind: "rollout-finished";
  readonly cluster: string;
  readonly status: JobStatus;
}

export interface JobNotFound {
  readonly kind: "job-not-found";
  readonly jobId: string;
}

/** The prompt waiting does not offer the answer clicked. */
export interface AnswerNotOffered {
  readonly kind: "answer-not-offered";
}

export interface AlreadyDecided {
  readonly kind: "already-decided";
  readonly by: string;
  readonly decision: string;
  readonly at: number;
}

/** The rollout no longer waits for this prompt. */
export interface NotAwaiting {
  readonly kind: "not-awaiting";
}

/** Reading or planning the cluster failed (`AppError` message). */
export interface PlanFailed {
  readonly kind: "plan-failed";
  readonly cluster: string;
  readonly message: string;
}

export interface Refused<R> {
  readonly kind: "refused";
  readonly reason: R;
}

export const refused = <R>(reason: R): Refused<R> => ({ kind: "refused", reason });
