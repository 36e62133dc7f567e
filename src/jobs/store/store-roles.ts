import type { JobStore } from "./job-store.js";

/**
 * The JobStore as each of its consumers sees it: the methods it calls and no more (as bullmq's LockManager sees its
 * Worker through `LockManagerWorkerContext`). A consumer's dependencies then say what it can do to durable state, and
 * its tests fake only that. These roles are the one way the store is narrowed; both stores implement all of them,
 * being JobStores.
 */

/** The lock keeper (jobs/runner/lock-keeper.ts): renews its lease. */
export type LeaseRenewer = Pick<JobStore, "renewLock">;

/**
 * The runner (jobs/runner/runner.ts): fenced checkpoints, reading the job's control requests back, audit lines.
 * Approvals reach it through its ApprovalSource, the lease through the keeper's signal.
 */
export type RunnerStore = Pick<JobStore, "saveJob" | "loadJob" | "appendAudit" | "markRecordLost">;

/**
 * The rollout service (jobs/runner/rollout-service.ts): takes and releases a cluster's lock, creates the job, finds
 * and takes over orphans, records history; and hands its runners and their keepers their roles.
 */
export type RolloutServiceStore = RunnerStore &
  LeaseRenewer &
  LostRecordStore &
  Pick<
    JobStore,
    "acquireLock" | "releaseLock" | "listJobs" | "createJob" | "findOrphans" | "takeOver" | "pushHistory"
  >;

/**
 * The lost-record guard (jobs/runner/lost-record-guard.ts): remembers unfinished records and writes back one the
 * store lost (with its control request, thread and audit line) unless its runner marked it lost.
 */
export type LostRecordStore = Pick<
  JobStore,
  | "listJobs"
  | "loadJob"
  | "acquireLock"
  | "releaseLock"
  | "recordLostMarked"
  | "onJobFinished"
  | "createJob"
  | "requestControl"
  | "recordSlackMessages"
  | "appendAudit"
>;

/** The records beside the jobs, one part of each store (memory-side-records.ts, redis-side-records.ts). */
export type SideRecords = Pick<
  JobStore,
  | "markRecordLost"
  | "recordLostMarked"
  | "saveFleetRun"
  | "loadFleetRun"
  | "requestFleetAbort"
  | "fleetAbortRequest"
  | "decideFleetStage"
  | "fleetStageDecision"
>;

/** An approval source that waits for people's answers (chat's slack-approval-source.ts). */
export type ApprovalWaitStore = Pick<JobStore, "waitForDecision">;

/** Who holds a cluster's lock, with its job (usecases/read-lock.ts; a start refused on a lock taken meanwhile). */
export type LockReader = Pick<JobStore, "readLock" | "loadJob">;

/** Preparing a rollout (usecases/prepare-rollout.ts): the store answers and the cluster's lock is free. */
export type PrepareStore = LockReader & Pick<JobStore, "ping">;

/** Pause, resume or abort (usecases/control-rollout.ts): the cluster's unfinished job, the request, "abort" for a prompt. */
export type ControlStore = Pick<JobStore, "listJobs" | "requestControl" | "decide">;

/** Answering a prompt (usecases/answer-approval.ts): the job awaiting it, and the decision. */
export type AnswerStore = Pick<JobStore, "loadJob" | "decide">;

/** `status` and `history` (usecases/read-status.ts) and the team's cluster overview: jobs, locks, history. */
export type StatusStore = Pick<JobStore, "listJobs" | "readLock" | "history" | "loadFleetRun">;

/** A fleet's start check, abort and stage answers (usecases/fleet-requests.ts). */
export type FleetRequestStore = Pick<
  JobStore,
  | "ping"
  | "readLock"
  | "loadJob"
  | "loadFleetRun"
  | "requestFleetAbort"
  | "decideFleetStage"
  | "listJobs"
  | "requestControl"
  | "decide"
  | "appendAudit"
>;

/** The Slack side (chat/use-case-deps.ts): what the listeners' use-cases take of the store, together. */
export type ChatStore = PrepareStore & ControlStore & AnswerStore & StatusStore & FleetRequestStore;

/** The operator commands of the CLI (status, unlock, abort, fleet status|abort: cli/operator-store.ts opens it). */
export type OperatorCommandStore = Pick<
  JobStore,
  | "listJobs"
  | "readLock"
  | "forceRelease"
  | "requestControl"
  | "decide"
  | "appendAudit"
  | "loadFleetRun"
  | "requestFleetAbort"
  | "decideFleetStage"
  | "ping"
  | "loadJob"
>;

/**
 * A replica's sweep for the final reports of finished jobs that their thread never got (chat/owed-reports.ts): recent
 * jobs, the claim that lets exactly one replica post a report, and the report's ts once posted.
 */
export type ReportSweepStore = Pick<JobStore, "listJobs" | "claimReport" | "recordSlackMessages">;

/** The Redis store's cluster locks and takeovers, built apart from the rest of it (jobs/redis/redis-locks.ts). */
export type ClusterLocks = Pick<
  JobStore,
  "acquireLock" | "renewLock" | "releaseLock" | "readLock" | "forceRelease" | "findOrphans" | "takeOver"
>;

/** The Redis store's reads of jobs and decisions, built apart from the rest of it (jobs/redis/redis-job-reads.ts). */
export type JobReads = Pick<JobStore, "loadJob" | "listJobs" | "readDecision">;
