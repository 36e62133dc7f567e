import { AppError, ErrorCode } from "../../core/errors.js";
import {
  type DecisionRecord,
  decisionRecordSchema,
  fromStoredFields,
  type JobRecord,
  parseStored,
  storedSlackOf,
} from "../store/job-record.js";
import type { ListJobsOptions } from "../store/job-store.js";
import type { JobReads } from "../store/store-roles.js";
import type { RedisStoreContext } from "./redis-store-context.js";

/** Reading jobs and decisions back from Redis, validated (`store/corrupt` when they fail their schema). */
export function createRedisJobReads(ctx: RedisStoreContext): JobReads {
  const { redis, keys, call } = ctx;

  async function loadJob(id: string): Promise<JobRecord> {
    const key = await ctx.jobKey(id);
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

  async function listJobs(opts: ListJobsOptions = {}): Promise<JobRecord[]> {
    const registry = keys.clusters();
    const clusters =
      opts.cluster === undefined
        ? await call("listJobs", registry, () => redis.smembers(registry))
        : [opts.cluster];
    const jobs: JobRecord[] = [];
    for (const cluster of clusters) {
      const index = opts.unfinishedOnly === true ? keys.unfinishedJobs(cluster) : keys.allJobs(cluster);
      const since = opts.createdSince;
      // ZRANGE … BYSCORE (Redis ≥ 6.2) rather than ZRANGEBYSCORE: the one command the restricted ACL user is granted.
      const ids = await call("listJobs", index, () =>
        since === undefined ? redis.zrange(index, 0, -1) : redis.zrange(index, since, "+inf", "BYSCORE"),
      );
      for (const id of ids) {
        try {
          ctx.rememberCluster(id, cluster);
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

  async function readDecision(jobId: string, approvalId: string): Promise<DecisionRecord | null> {
    const key = await ctx.jobKey(jobId);
    const text = await call("readDecision", key, () => redis.hget(key, `decision:${approvalId}`));
    return text === null ? null : parseStored(`${key} decision:${approvalId}`, text, decisionRecordSchema);
  }

  return { loadJob, listJobs, readDecision };
}
