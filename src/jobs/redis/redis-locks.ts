import { randomUUID } from "node:crypto";
import { AppError, ErrorCode } from "../../core/errors.js";
import type { AcquireResult, JobStore, Lease, LockHolder } from "../store/job-store.js";
import type { ClusterLocks } from "../store/store-roles.js";
import { parseStatus, replyArray, replyHolder, replyNumber } from "./redis-replies.js";
import type { RedisStoreContext } from "./redis-store-context.js";

export interface RedisLocksOptions {
  /** Unfinished jobs (findOrphans keeps those whose lock is free). */
  readonly listJobs: JobStore["listJobs"];
  /** For `lock-force-released` on the holder's audit. */
  readonly appendAudit: JobStore["appendAudit"];
  readonly now: () => number;
  readonly auditLimit: number;
}

/** The cluster locks of the Redis job store: each change one Lua script over the cluster's lock keys. */
export function createRedisLocks(ctx: RedisStoreContext, options: RedisLocksOptions): ClusterLocks {
  const { redis, keys, call, run } = ctx;

  function toAcquireResult(reply: unknown, name: string, lease: Omit<Lease, "fence">): AcquireResult {
    const r = replyArray(reply, name);
    if (replyNumber(r[0], name) === 1) {
      return { kind: "acquired", lease: { ...lease, fence: replyNumber(r[1], name) } };
    }
    return { kind: "held", holder: replyHolder(r, 1, name) };
  }

  return {
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
        await options
          .appendAudit(holder.jobId, {
            at: options.now(),
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

    async findOrphans() {
      const unfinished = await options.listJobs({ unfinishedOnly: true });
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
      const reply = await run(name, k, [token, ttlMs, job.id, owner, options.auditLimit, detail]);
      const r = replyArray(reply, name);
      if (replyNumber(r[0], name) === 2) return { kind: "finished", status: parseStatus(r[1], name) };
      return toAcquireResult(r, name, { cluster: job.cluster, jobId: job.id, owner, token });
    },
  };
}
