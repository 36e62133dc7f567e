import type { JobStore } from "./job-store.js";

/**
 * The JobStore as each of its consumers sees it: the methods it calls and no more (as bullmq's LockManager sees its
 * Worker through `LockManagerWorkerContext`). A consumer's dependencies then say what it can do to durable state, and
 * its tests fake only that. Both stores implement all of them, being JobStores.
 */

/** The lock keeper (jobs/runner/lock-keeper.ts): renews its lease. */
export type LeaseRenewer = Pick<JobStore, "renewLock">;

/**
 * The runner (jobs/runner/runner.ts): fenced checkpoints, reading the job's control requests back, audit lines.
 * Approvals reach it through its ApprovalSource, the lease through the keeper's signal.
 */
export type RunnerStore = Pick<JobStore, "saveJob" | "loadJob" | "appendAudit">;

/**
 * The rollout service (jobs/runner/rollout-service.ts): takes and releases a cluster's lock, creates the job, finds
 * and takes over orphans, records history; and hands its runners and their keepers their roles.
 */
export type RolloutServiceStore = RunnerStore &
  LeaseRenewer &
  Pick<
    JobStore,
    "acquireLock" | "releaseLock" | "listJobs" | "createJob" | "findOrphans" | "takeOver" | "pushHistory"
  >;

/** An approval source that waits for people's answers (chat's slack-approval-source.ts). */
export type ApprovalWaitStore = Pick<JobStore, "waitForDecision">;

/**
 * The Slack side (chat/use-case-deps.ts: what the listeners hand the use-cases, and the team's cluster overview):
 * readiness, locks, jobs and history to show, and what people ask of a running job. Each use-case names the part it
 * needs; this is their union.
 */
export type ChatStore = Pick<
  JobStore,
  "ping" | "readLock" | "loadJob" | "listJobs" | "history" | "requestControl" | "decide"
>;

/** The operator commands of the CLI (status, unlock, abort: cli/operator-store.ts opens it). */
export type OperatorCommandStore = Pick<
  JobStore,
  "listJobs" | "readLock" | "forceRelease" | "requestControl" | "decide" | "appendAudit"
>;
