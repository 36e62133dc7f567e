import { randomUUID } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import { AppError, ErrorCode } from "../core/errors.js";
import { auditEntrySchema, historyEntrySchema } from "./audit-and-history.js";
import { waitForDecisionWith } from "./decision-waiter.js";
import {
  type Decision,
  decisionSchema,
  fromStoredFields,
  isFinished,
  type JobRecord,
  parseStored,
  storedSlackOf,
  toStoredFields,
  validateForWrite,
} from "./job-record.js";
import {
  type AcquireResult,
  checkLeaseMatches,
  type JobStore,
  type Lease,
  type LockHolder,
} from "./job-store.js";
import { toStoreError } from "./redis-errors.js";
import { createRedisKeys } from "./redis-keys.js";
import {
  parseAuditRow,
  parseStatus,
  replyArray,
  replyHolder,
  replyNumber,
  replyString,
} from "./redis-replies.js";
import { createScriptRunner, type ScriptName } from "./redis-scripts.js";
import { createRedisSubscriptions } from "./redis-subscriptions.js";
import { runEveryStep } from "./run-every-step.js";

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
  return isCluster(redis)
    ? redis.duplicate(undefined, { lazyConnect: true, enableOfflineQueue: true })
    : redis.duplicate({ lazyConnect: true, enableOfflineQueue: true });
}

export function isCluster(redis: Redis | Cluster): redis is Cluster {
  return "isCluster" in redis && redis.isCluster === true;
}

/** The JobStore on Redis ≥ 6.2: one Lua script per atomic change, shared by every replica. */
export function createRedisJobStore(options: RedisJobStoreOptions): JobStore {
  const { redis, prefix } = options;
  const auditLimit = options.auditLimit ?? 1000;
  const historyLimit = options.historyLimit ?? 50;
  const now = options.now ?? Date.now;
  const keys = createRedisKeys(prefix);
  const scripts = createScriptRunner(redis);
  const ownsSubscriber = options.subscriber === undefined;
  const subscriptions = createRedisSubscriptions(options.subscriber ?? duplicateLazily(redis));
  const closing = new AbortController();
  let closed: Promise<void> | undefined;

  async function call<T>(operation: string, key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw toStoreError(error, { operation, key });
    }
  }
  const run = (name: ScriptName, k: string[], args: Array<string | number>) =>
    call(name, k[0] ?? "", () => scripts.run(name, k, args));

  function toAcquireResult(reply: unknown, name: string, lease: Omit<Lease, "fence">): AcquireResult {
    const r = replyArray(reply, name);
    if (replyNumber(r[0], name) === 1) {
      return { kind: "acquired", lease: { ...lease, fence: replyNumber(r[1], name) } };
    }
    return { kind: "held", holder: replyHolder(r, 1, name) };
  }

  /** Job id → its cluster (the job-cluster index; immutable once written, so cached). */
  const clusterOfJob = new Map<string, string>();
  async function clusterOf(id: string): Promise<string> {
    const cached = clusterOfJob.get(id);
    if (cached !== undefined) return cached;
    const index = keys.jobCluster();
    const cluster = await call("jobCluster", index, () => redis.hget(index, id));
    if (cluster === null)
      throw new AppError(ErrorCode.JobNotFound, `job ${id} not found`, { details: { jobId: id } });
    clusterOfJob.set(id, cluster);
    return cluster;
  }
  const jobKey = async (id: string) => keys.job(await clusterOf(id), id);
  const auditKey = async (id: string) => keys.audit(await clusterOf(id), id);

  async function loadJob(id: string): Promise<JobRecord> {
    const key = await jobKey(id);
    const fields = await call("loadJob", key, () => redis.hgetall(key));
    if (Object.keys(fields).length === 0) {
      throw new AppError(ErrorCode.JobNotFound, `job ${id} not found`, { details: { jobId: id } });
    }
    return fromStoredFields(
      key,
      fields,
      {
        pause: fields["ctl:pause"],
        abort: fields["ctl:abort"],
        by: fields["ctl:by"],
        at: fields["ctl:at"],
        seq: fields["ctl:seq"],
      },
      storedSlackOf(fields),
    );
  }

  async function listJobs(opts: { cluster?: string; unfinishedOnly?: boolean } = {}): Promise<JobRecord[]> {
    const registry = keys.clusters();
    const clusters =
      opts.cluster === undefined
        ? await call("listJobs", registry, () => redis.smembers(registry))
        : [opts.cluster];
    const jobs: JobRecord[] = [];
    for (const cluster of clusters) {
      const index = opts.unfinishedOnly === true ? keys.unfinishedJobs(cluster) : keys.allJobs(cluster);
      const ids = await call("listJobs", index, () => redis.zrange(index, 0, -1));
      for (const id of ids) {
        try {
          clusterOfJob.set(id, cluster);
          const job = await loadJob(id);
          if (job.cluster === cluster) jobs.push(job);
        } catch (error) {
          if (error instanceof AppError && error.code === ErrorCode.JobNotFound) continue;
          throw error;
        }
      }
    }
    // Oldest first across clusters (each index is ordered by createdAt; ties by id, as a sorted set orders them).
    return jobs.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async function readDecision(jobId: string, approvalId: string): Promise<Decision | null> {
    const key = await jobKey(jobId);
    const text = await call("readDecision", key, () => redis.hget(key, `decision:${approvalId}`));
    return text === null ? null : parseStored(`${key} decision:${approvalId}`, text, decisionSchema);
  }

  const store: JobStore = {
    async acquireLock(cluster, { jobId, owner, ttlMs }) {
      const token = randomUUID();
      const reply = await run(
        "acquire-lock-3",
        [keys.lock(cluster), keys.lockHolder(cluster), keys.fence(cluster)],
        [token, ttlMs, jobId, owner],
      );
      return toAcquireResult(reply, "acquire-lock-3", { cluster, jobId, owner, token });
    },

    async renewLock(lease, ttlMs) {
      const k = [keys.lock(lease.cluster), keys.lockHolder(lease.cluster)];
      return replyNumber(await run("renew-lock-2", k, [lease.token, ttlMs]), "renew-lock-2") === 1;
    },

    async releaseLock(lease) {
      const k = [keys.lock(lease.cluster), keys.lockHolder(lease.cluster)];
      return replyNumber(await run("release-lock-2", k, [lease.token]), "release-lock-2") === 1;
    },

    async readLock(cluster) {
      const reply = await run("read-lock-2", [keys.lock(cluster), keys.lockHolder(cluster)], []);
      return reply === null ? null : replyHolder(replyArray(reply, "read-lock-2"), 0, "read-lock-2");
    },

    async forceRelease(cluster, by) {
      const name = "force-release-2";
      const r = replyArray(await run(name, [keys.lock(cluster), keys.lockHolder(cluster)], []), name);
      if (replyNumber(r[0], name) === 0) return { kind: "not-held" };
      const holder: LockHolder = replyHolder(r, 1, name);
      if (holder.jobId !== "") {
        // The job's record may be gone (Redis lost it): the lock is released all the same.
        await store
          .appendAudit(holder.jobId, {
            at: now(),
            actor: by,
            action: "lock-force-released",
            detail: `lock on ${cluster} released by ${by} (was held by ${holder.owner})`,
          })
          .catch((error: unknown) => {
            if (!(error instanceof AppError && error.code === ErrorCode.JobNotFound)) throw error;
          });
      }
      return { kind: "released", holder };
    },

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
      clusterOfJob.set(record.id, record.cluster);
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

    loadJob,

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
        ].concat([f.status, f.approval]),
      );
    },

    listJobs,

    async decide(jobId, approvalId, decision) {
      const name = "decide-1";
      const body = JSON.stringify(decisionSchema.parse(decision));
      const args = [approvalId, body, keys.decisionChannel(jobId), jobId];
      const key = await jobKey(jobId);
      const r = replyArray(await run(name, [key], args), name);
      const kind = replyNumber(r[0], name);
      if (kind === 1) return { kind: "recorded" };
      if (kind === 0) return { kind: "not-awaiting" };
      const stored = parseStored(key, replyString(r[1], name), decisionSchema);
      return { kind: "already-decided", decision: stored };
    },

    readDecision,

    waitForDecision(jobId, approvalId, { signal, pollMs }) {
      const channel = keys.decisionChannel(jobId);
      return waitForDecisionWith({
        read: () => readDecision(jobId, approvalId),
        listen: (onWake) => subscriptions.listen(channel, (message) => message === approvalId && onWake()),
        signal: AbortSignal.any([signal, closing.signal]),
        pollMs: pollMs ?? DEFAULT_POLL_MS,
      });
    },

    async requestControl(jobId, { action, by, at }) {
      const name = "request-control-1";
      const r = replyArray(await run(name, [await jobKey(jobId)], [action, by, at, jobId]), name);
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
        [await jobKey(jobId)],
        [jobId, thread === undefined ? "" : JSON.stringify(thread), ...pairs],
      );
    },

    async appendAudit(jobId, entry) {
      const key = await auditKey(jobId);
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
    },

    async readAudit(jobId) {
      let key: string;
      try {
        key = await auditKey(jobId);
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

    async findOrphans() {
      const unfinished = await listJobs({ unfinishedOnly: true });
      if (unfinished.length === 0) return [];
      // One GET per cluster (its lock has its own slot: no multi-key MGET across clusters on a Redis Cluster).
      const free = new Map<string, boolean>();
      for (const cluster of new Set(unfinished.map((job) => job.cluster))) {
        const key = keys.lock(cluster);
        free.set(cluster, (await call("findOrphans", key, () => redis.get(key))) === null);
      }
      return unfinished.filter((job) => free.get(job.cluster) === true);
    },

    async takeOver(job, owner, ttlMs) {
      const name = "take-over-5";
      const token = randomUUID();
      const k = [keys.lock(job.cluster), keys.lockHolder(job.cluster), keys.fence(job.cluster)];
      k.push(keys.job(job.cluster, job.id), keys.audit(job.cluster, job.id));
      const detail = `${owner} took over job ${job.id} on ${job.cluster}`;
      const reply = await run(name, k, [token, ttlMs, job.id, owner, auditLimit, detail]);
      const r = replyArray(reply, name);
      if (replyNumber(r[0], name) === 2) return { kind: "finished", status: parseStatus(r[1], name) };
      return toAcquireResult(r, name, { cluster: job.cluster, jobId: job.id, owner, token });
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
