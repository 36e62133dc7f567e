import { AppError, ErrorCode } from "../../core/errors.js";
import type { AuditEntry, HistoryEntry, StoredAuditEntry } from "./audit-and-history.js";
import type { FleetRunRecord, FleetStageDecision } from "./fleet-record.js";
import type { ControlState, DecisionRecord, JobRecord, JobStatus, SlackThread } from "./job-record.js";

/**
 * Proof of holding a cluster's lock. `token` is random per acquisition and is what renew/release/save
 * compare; `fence` is a per-cluster counter that only grows, so a later lease always has a higher one.
 */
export interface Lease {
  readonly cluster: string;
  readonly jobId: string;
  readonly owner: string;
  readonly token: string;
  readonly fence: number;
}

/** Who holds a cluster's lock. Times are epoch ms of the store's clock (the Redis server's, for Redis). */
export interface LockHolder {
  readonly jobId: string;
  readonly owner: string;
  readonly since: number;
  readonly expiresAt: number;
}

export type AcquireResult = { kind: "acquired"; lease: Lease } | { kind: "held"; holder: LockHolder };
export type TakeOverResult = AcquireResult | { kind: "finished"; status: JobStatus };
export type ForceReleaseResult = { kind: "released"; holder: LockHolder } | { kind: "not-held" };

export interface AcquireOptions {
  jobId: string;
  /** Who is asking: a replica id (host + pid), shown in `status` and audit lines. */
  owner: string;
  ttlMs: number;
}

export type DecideResult =
  | { kind: "recorded" }
  | { kind: "already-decided"; decision: DecisionRecord }
  | { kind: "not-awaiting" };

export type ControlAction = "pause" | "resume" | "abort";
export interface ControlRequest {
  action: ControlAction;
  by: string;
  at: number;
}
export type RequestControlResult =
  | { kind: "recorded"; control: ControlState }
  | { kind: "finished"; status: JobStatus };

export interface ListJobsOptions {
  cluster?: string;
  /** Only pending, running, paused and awaiting-approval jobs. */
  unfinishedOnly?: boolean;
  /**
   * Only jobs created at or after this time (epoch ms, compared with the records' `createdAt`): read from the index
   * ordered by it, so a store full of old jobs is not loaded to find the recent ones.
   */
  createdSince?: number;
}

export interface WaitForDecisionOptions {
  /** Aborting it rejects the wait with the signal's reason. */
  signal: AbortSignal;
  /** How often to read the decision in case a wake-up message was lost. Default 1000 ms. */
  pollMs?: number;
}

/**
 * Durable state of rollouts: cluster locks with fencing, job records, approvals, control requests,
 * audit trail and per-cluster history. Shared by every bot replica. Adapters: Redis and in-memory, both passing
 * test/jobs/store/job-store-contract.ts. A consumer takes the narrow role it uses (store-roles.ts), not the whole store.
 *
 * Errors: every method may throw AppError `store/unavailable` (retryable) when the backend cannot be
 * reached; reads throw `store/corrupt` when stored data fails its schema. Expected outcomes (lock held,
 * decision already taken) are returned as values.
 */
export interface JobStore {
  // Cluster locks with fencing, and taking over the jobs whose lock was let go.
  /** Takes the cluster's lock for `jobId` if it is free, bumping the cluster's fencing counter. */
  acquireLock(cluster: string, options: AcquireOptions): Promise<AcquireResult>;
  /** Extends the lease to `ttlMs` from now. False when the lease is no longer the lock's holder. */
  renewLock(lease: Lease, ttlMs: number): Promise<boolean>;
  /** Releases the lock if this lease still holds it. False when it did not (expired or taken over). */
  releaseLock(lease: Lease): Promise<boolean>;
  /** The current holder, or null when the lock is free. */
  readLock(cluster: string): Promise<LockHolder | null>;
  /**
   * Operator's manual unlock: frees the lock whoever holds it and appends `lock-force-released` to the
   * holder job's audit. The old holder's next renew or save fails, so its keeper aborts its work.
   */
  forceRelease(cluster: string, by: string): Promise<ForceReleaseResult>;
  /**
   * Unfinished jobs (pending, running, paused, awaiting-approval) whose cluster lock is free: their
   * owner died or gave up. What a replica takes over on start-up and periodically.
   */
  findOrphans(): Promise<JobRecord[]>;
  /**
   * Acquires the cluster lock for `job.id` (a new, higher fence) and stamps the stored job with the new
   * fence and owner, so the previous owner's writes are refused from then on. Appends `lock-taken-over`
   * to the audit. Reload the job afterwards: the returned lease is what `saveJob` needs.
   */
  takeOver(job: JobRecord, owner: string, ttlMs: number): Promise<TakeOverResult>;

  // Job records: the runner's fenced checkpoints, chat's control requests and Slack message ts beside them.
  /**
   * Stores a new job. Its `fence` and `owner` are stored as given (use 0 and null before a lock is taken);
   * its `control` is ignored (set it with `requestControl`).
   * @throws AppError `internal` when a job with this id already exists.
   */
  createJob(record: JobRecord): Promise<void>;
  /** @throws AppError `job/not-found`; `store/corrupt` when the record fails its schema. */
  loadJob(id: string): Promise<JobRecord>;
  /**
   * Writes the runner's checkpoint, fenced: succeeds only while the cluster lock holds this lease's
   * token and the stored fence is ≤ the lease's. The stored `fence` and `owner` become the lease's; the
   * record's `control` is ignored (chat owns it). Nothing is written on refusal.
   * @throws AppError `lock/lost` when refused; `job/not-found`.
   */
  saveJob(lease: Lease, record: JobRecord): Promise<void>;
  /** Jobs, oldest first. */
  listJobs(options?: ListJobsOptions): Promise<JobRecord[]>;
  /**
   * Records pause / resume / abort durably on the job (visible as `record.control`). `pause` and `resume`
   * set `control.pause`; `abort` sets `control.abort`, which stays set. The runner reads it before each
   * restart. Refused with `{ kind: "finished" }` once the job is over.
   * @throws AppError `job/not-found`.
   */
  requestControl(jobId: string, request: ControlRequest): Promise<RequestControlResult>;
  /**
   * Records the job's Slack thread (once its parent is posted: it may be after the job started) and the ts of
   * messages in it by notifier key (step replies, prompts), beside the runner's body: checkpoints never overwrite
   * them. A job read back has `thread` (when its body has none) and `messages` from these. Later values win.
   * @throws AppError `job/not-found`.
   */
  recordSlackMessages(
    jobId: string,
    input: { thread?: SlackThread; messages?: Readonly<Record<string, string>> },
  ): Promise<void>;
  /**
   * Claims the posting of a finished job's final report for `owner`, atomically: true for the first claimer, false
   * while a claim is alive (anyone's, the same owner's included). The claim lapses `ttlMs` after it was taken (the
   * store's clock), so a claimer that died or could not post leaves the report to a later claimer. It says nothing
   * of whether the report was posted: the ts recorded in `messages` does.
   * @throws AppError `job/not-found`.
   */
  claimReport(jobId: string, owner: string, ttlMs: number): Promise<boolean>;
  /**
   * Marks that the runner of job `jobId` found its record gone from the store and told its thread so (record-lost),
   * so that a replica which still remembers the record leaves it lost instead of writing it back. The mark needs no
   * record and lapses `ttlMs` after it was set (the store's clock).
   */
  markRecordLost(cluster: string, jobId: string, ttlMs: number): Promise<void>;
  /** True while a record-lost mark of the job is alive. */
  recordLostMarked(cluster: string, jobId: string): Promise<boolean>;
  /**
   * Calls `listener` with a job's id whenever a checkpoint records it finished (any replica's), until the returned
   * function is called. Best effort (pub/sub loses messages while a connection is down).
   */
  onJobFinished(listener: (jobId: string) => void): Promise<() => void>;

  // Fleet runs: the latest run of each fleet, written by the process that holds the fleet's lock.
  /** Stores the fleet's latest run, replacing the one before. */
  saveFleetRun(record: FleetRunRecord): Promise<void>;
  /** The fleet's latest run, or null. @throws AppError `store/corrupt` when it fails its schema. */
  loadFleetRun(fleet: string): Promise<FleetRunRecord | null>;
  /** Records an abort of fleet run `runId` (first request wins; later ones keep it). */
  requestFleetAbort(fleet: string, runId: string, request: { by: string; at: number }): Promise<void>;
  /** The abort recorded for fleet run `runId`, or null. */
  fleetAbortRequest(fleet: string, runId: string): Promise<{ by: string; at: number } | null>;
  /** Records the answer to stage `stage` (from 0) of fleet run `runId` (first answer wins; later ones keep it). */
  decideFleetStage(fleet: string, runId: string, stage: number, decision: FleetStageDecision): Promise<void>;
  /** The answer recorded for that stage, or null. */
  fleetStageDecision(fleet: string, runId: string, stage: number): Promise<FleetStageDecision | null>;

  // Answers to approval prompts: first writer wins, waiters are woken.
  /**
   * Records an answer to an approval prompt if the job currently awaits exactly `approvalId` and no
   * answer is recorded yet (first writer wins, atomically), then wakes waiters.
   * @throws AppError `job/not-found`.
   */
  decide(jobId: string, approvalId: string, decision: DecisionRecord): Promise<DecideResult>;
  /** The recorded decision for this approval, or null. */
  readDecision(jobId: string, approvalId: string): Promise<DecisionRecord | null>;
  /**
   * Resolves with the decision as soon as one is recorded (woken by pub/sub, and polling every `pollMs`
   * because pub/sub loses messages). Rejects with `signal.reason` on abort, or with a store error.
   */
  waitForDecision(
    jobId: string,
    approvalId: string,
    options: WaitForDecisionOptions,
  ): Promise<DecisionRecord>;

  // Each job's audit trail and each cluster's history of finished rollouts.
  /**
   * Appends to the job's audit trail (capped to the newest entries).
   * @throws AppError `job/not-found` (Redis) when no job with this id was created: its keys live in its cluster's slot.
   */
  appendAudit(jobId: string, entry: AuditEntry): Promise<void>;
  /** The job's audit trail in append order. */
  readAudit(jobId: string): Promise<StoredAuditEntry[]>;
  /** Adds a finished rollout to the cluster's history, keeping only the newest N. */
  pushHistory(cluster: string, entry: HistoryEntry): Promise<void>;
  /** The newest `limit` entries, newest first. */
  history(cluster: string, limit: number): Promise<HistoryEntry[]>;

  // Readiness and shutdown.
  /** Readiness: resolves when the backend answers. @throws AppError `store/unavailable`. */
  ping(): Promise<void>;
  /**
   * Stops waiters (their waits reject) and releases the store's own resources. Does not close clients
   * passed in. Idempotent: later calls return the same promise.
   */
  close(): Promise<void>;
}

/**
 * A lease only writes the job it was taken for, on its cluster.
 * @throws AppError `internal` otherwise (a runner bug, not a lost lock).
 */
export function checkLeaseMatches(lease: Lease, record: JobRecord): void {
  if (lease.jobId !== record.id || lease.cluster !== record.cluster) {
    throw new AppError(
      ErrorCode.Internal,
      `lease for job ${lease.jobId} on ${lease.cluster} cannot save job ${record.id} on ${record.cluster}`,
    );
  }
}
