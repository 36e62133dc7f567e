import type { Cluster, Redis } from "ioredis";
import { AppError, ErrorCode } from "../../core/errors.js";
import { toStoreError } from "./redis-errors.js";
import { createRedisKeys, type RedisKeys } from "./redis-keys.js";
import { createScriptRunner, type ScriptName } from "./redis-scripts.js";

/** What the parts of the Redis job store share: the client, key names, calls with errors mapped, a job's keys. */
export interface RedisStoreContext {
  readonly redis: Redis | Cluster;
  readonly keys: RedisKeys;
  /** Runs one Redis call; its failure becomes `store/unavailable` (or the mapped Lua error) naming the operation. */
  call<T>(operation: string, key: string, fn: () => Promise<T>): Promise<T>;
  /** Runs one of the store's Lua scripts (the first key names the call in errors). */
  run(name: ScriptName, keys: string[], args: Array<string | number>): Promise<unknown>;
  /** The job's cluster, from the job-cluster index (cached: it never changes). @throws `job/not-found`. */
  clusterOf(jobId: string): Promise<string>;
  /** Records a job's cluster already known (a job created, or found in its cluster's index). */
  rememberCluster(jobId: string, cluster: string): void;
  jobKey(jobId: string): Promise<string>;
  auditKey(jobId: string): Promise<string>;
}

export function createRedisStoreContext(redis: Redis | Cluster, prefix: string): RedisStoreContext {
  const keys = createRedisKeys(prefix);
  const scripts = createScriptRunner(redis);
  async function call<T>(operation: string, key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw toStoreError(error, { operation, key });
    }
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
  return {
    redis,
    keys,
    call,
    run: (name, k, args) => call(name, k[0] ?? "", () => scripts.run(name, k, args)),
    clusterOf,
    rememberCluster: (id, cluster) => void clusterOfJob.set(id, cluster),
    jobKey: async (id) => keys.job(await clusterOf(id), id),
    auditKey: async (id) => keys.audit(await clusterOf(id), id),
  };
}
