import type { Cluster, Redis } from "ioredis";
import { AppError, ErrorCode } from "../../core/errors.js";
import { auditEntrySchema, historyEntrySchema } from "../store/audit-and-history.js";
import { waitForDecisionWith } from "../store/decision-waiter.js";
import {
  decisionRecordSchema,
  isFinished,
  parseStored,
  toStoredFields,
  validateForWrite,
} from "../store/job-record.js";
import { checkLeaseMatches, type JobStore } from "../store/job-store.js";
import { runEveryStep } from "../store/run-every-step.js";
import { reconnectAfterUnaskedEnd } from "./redis-client.js";
import { createRedisJobReads } from "./redis-job-reads.js";
import { createRedisLocks } from "./redis-locks.js";
import { parseAuditRow, parseStatus, replyArray, replyNumber, replyString } from "./redis-replies.js";
import { createRedisSideRecords } from "./redis-side-records.js";
import { createRedisStoreContext } from "./redis-store-context.js";
import { createRedisSubscriptions } from "./redis-subscriptions.js";

export interface RedisJobStoreOptions {
  /**
   * Client for commands, owned by the caller (close() does not quit it). Expected settings:
   * `commandTimeout` (e.g. 2000 ms) so no call hangs — a timed-out renewal counts as a lost lock;
   * a finite `maxRetriesPerRequest` and `enableOfflineQueue: false` (or a short queue) so an outage
   * surfaces as `store/unavailable` instead of queueing writes that land after the lease expired.
   */
  redis: Redis | Cluster;
  /** Prepended to every key and channel, e.g. `connect-roll:`. */
  prefix: string;
  /**
   * Connection for pub/sub wake-ups (it can run nothing else). Default: `redis.duplicate()` made here,
   * connected on first wait and disconnected by close(). A connection passed in is not disconnected.
   */
  subscriber?: Redis | Cluster;
  /** Audit entries kept per job. Default 1000. */
  auditLimit?: number;
  /** Finished rollouts kept per cluster. Default 50. */
  historyLimit?: number;
  /** Clock for the `at` of audit lines the store writes itself (force release). Default `Date.now`. */
  now?: () => number;
}

const DEFAULT_POLL_MS = 1000;

/**
 * A second connection of the same kind (pub/sub needs its own), connected on first use. It may queue its SUBSCRIBE
 * until it is connected (it never writes): without that queue a client that is not connected at once (through
 * Sentinel, or a Cluster) refuses the first SUBSCRIBE and waiters fall back to polling.
 */
function duplicateLazily(redis: Redis | Cluster): Redis | Cluster {
  if (isCluster(redis)) return redis.duplicate(undefined, { lazyConnect: true, enableOfflineQueue: true });
  const subscriber = redis.duplicate({ lazyConnect: true, enableOfflineQueue: true });
  // Until it connects again, waiters poll; it says nothing of it (the command connection's log does).
  reconnectAfterUnaskedEnd(
    subscriber,
    () => undefined,
    () => true,
  );
  return subscriber;
}

function isCluster(redis: Redis | Cluster): redis is Cluster {
  return "isCluster" in redis && redis.isCluster === true;
}

/**
 * The JobStore on Redis ≥ 6.2: one Lua script per atomic change, shared by every replica. Its locks are in
 * redis-locks.ts, its reads in redis-job-reads.ts; the writes of records, decisions, control, audit and history here.
 */
export function createRedisJobStore(options: RedisJobStoreOptions): JobStore {
  const { redis, prefix } = options;
  const auditLimit = options.auditLimit ?? 1000;
  const historyLimit = options.historyLimit ?? 50;
  const now = options.now ?? Date.now;
  const ctx = createRedisStoreContext(redis, prefix);
  const { keys, call, run } = ctx;
  const ownsSubscriber = options.subscriber === undefined;
  const subscriptions = createRedisSubscriptions(options.subscriber ?? duplicateLazily(redis));
  const closing = new AbortController();
  let closed: Promise<void> | undefined;
  const reads = createRedisJobReads(ctx);

  const appendAudit: JobStore["appendAudit"] = async (jobId, entry) => {
    const key = await ctx.auditKey(jobId);
    const e = auditEntrySchema.parse(entry);
    await call("appendAudit", key, () =>
      redis.xadd(
        key,
        "MAXLEN",
        auditLimit,
        "*",
        "at",
        e.at,
        "actor",
        e.actor,
        "action",
        e.action,
        "detail",
        e.detail,
      ),
    );
  };

  const store: JobStore = {
    ...createRedisSideRecords(ctx),
    ...createRedisLocks(ctx, { listJobs: reads.listJobs, appendAudit, now, auditLimit }),
    ...reads,

    async createJob(record) {
      const f = toStoredFields(validateForWrite(record));
      // The global indexes first (each one key, outside the script): a job id always finds its cluster's slot.
      const index = keys.jobCluster();
      const mapped = await call("createJob", index, () => redis.hsetnx(index, record.id, record.cluster));
      if (
        mapped === 0 &&
        (await call("createJob", index, () => redis.hget(index, record.id))) !== record.cluster
      )
        throw new AppError(
          ErrorCode.Internal,
          `createJob: job ${record.id} already exists on another cluster`,
        );
      ctx.rememberCluster(record.id, record.cluster);
      const registry = keys.clusters();
      await call("createJob", registry, () => redis.sadd(registry, record.cluster));
      await run(
        "create-job-3",
        [
          keys.job(record.cluster, record.id),
          keys.allJobs(record.cluster),
          keys.unfinishedJobs(record.cluster),
        ],
        [
          record.id,
          record.createdAt,
          isFinished(record.status) ? "1" : "0",
          f.record,
          f.fence,
          f.owner,
        ].concat([f.status, f.cluster, f.approval]),
      );
    },

    async saveJob(lease, record) {
      checkLeaseMatches(lease, record);
      const f = toStoredFields(validateForWrite({ ...record, fence: lease.fence, owner: lease.owner }));
      await run(
        "save-job-3",
        [keys.job(record.cluster, record.id), keys.lock(lease.cluster), keys.unfinishedJobs(record.cluster)],
        [
          lease.token,
          lease.fence,
          record.id,
          isFinished(record.status) ? "1" : "0",
          f.record,
          f.owner,
        ].concat([f.status, f.approval, keys.finishedChannel()]),
      );
    },

    onJobFinished(listener) {
      return subscriptions.listen(keys.finishedChannel(), listener);
    },

    async decide(jobId, approvalId, decision) {
      const name = "decide-1";
      const body = JSON.stringify(decisionRecordSchema.parse(decision));
      const args = [approvalId, body, keys.decisionChannel(jobId), jobId];
      const key = await ctx.jobKey(jobId);
      const r = replyArray(await run(name, [key], args), name);
      const kind = replyNumber(r[0], name);
      if (kind === 1) return { kind: "recorded" };
      if (kind === 0) return { kind: "not-awaiting" };
      const stored = parseStored(key, replyString(r[1], name), decisionRecordSchema);
      return { kind: "already-decided", decision: stored };
    },

    waitForDecision(jobId, approvalId, { signal, pollMs }) {
      const channel = keys.decisionChannel(jobId);
      return waitForDecisionWith({
        read: () => reads.readDecision(jobId, approvalId),
        listen: (onWake) => subscriptions.listen(channel, (message) => message === approvalId && onWake()),
        signal: AbortSignal.any([signal, closing.signal]),
        pollMs: pollMs ?? DEFAULT_POLL_MS,
      });
    },

    async requestControl(jobId, { action, by, at }) {
      const name = "request-control-1";
      const r = replyArray(await run(name, [await ctx.jobKey(jobId)], [action, by, at, jobId]), name);
      if (replyNumber(r[0], name) === 2) return { kind: "finished", status: parseStatus(r[1], name) };
      const control = {
        pause: r[1] === "1",
        abort: r[2] === "1",
        by: replyString(r[3], name),
        at: replyNumber(r[4], name),
        seq: replyNumber(r[5], name),
      };
      return { kind: "recorded", control };
    },

    async recordSlackMessages(jobId, { thread, messages = {} }) {
      const pairs = Object.entries(messages).flat();
      await run(
        "record-slack-messages-1",
        [await ctx.jobKey(jobId)],
        [jobId, thread === undefined ? "" : JSON.stringify(thread), ...pairs],
      );
    },

    async claimReport(jobId, owner, ttlMs) {
      const name = "claim-report-2";
      const cluster = await ctx.clusterOf(jobId);
      const keysOfClaim = [keys.job(cluster, jobId), keys.reportClaim(cluster, jobId)];
      return (
        replyNumber(await run(name, keysOfClaim, [owner, Math.max(1, Math.ceil(ttlMs)), jobId]), name) === 1
      );
    },

    appendAudit,

    async readAudit(jobId) {
      let key: string;
      try {
        key = await ctx.auditKey(jobId);
      } catch (error) {
        if (error instanceof AppError && error.code === ErrorCode.JobNotFound) return [];
        throw error;
      }
      const rows = await call("readAudit", key, () => redis.xrange(key, "-", "+"));
      return rows.map(([id, flat]) => parseAuditRow(key, id, flat));
    },

    async pushHistory(cluster, entry) {
      const body = JSON.stringify(historyEntrySchema.parse(entry));
      await run("push-history-1", [keys.history(cluster)], [body, historyLimit]);
    },

    async history(cluster, limit) {
      const key = keys.history(cluster);
      if (limit <= 0) return [];
      const rows = await call("history", key, () => redis.lrange(key, 0, limit - 1));
      return rows.map((row, i) => parseStored(`${key}[${i}]`, row, historyEntrySchema));
    },

    async ping() {
      await call("ping", "", () => redis.ping());
    },

    close() {
      closed ??= closeAll();
      return closed;
    },
  };

  function closeAll(): Promise<void> {
    return runEveryStep([
      () => closing.abort(new AppError(ErrorCode.StoreUnavailable, "job store closed")),
      () => subscriptions.close(ownsSubscriber),
    ]);
  }

  return store;
}
