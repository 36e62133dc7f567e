/**
 * Every Redis key and pub/sub channel name the job store uses, built in one place.
 *
 * Layout under the configurable `prefix` (e.g. `connect-roll:`):
 * - `lock:<cluster>`          string, the lease token (`SET NX PX`), expires with the lease
 * - `lock-holder:<cluster>`   hash `{ jobId, owner, since, expiresAt }`, same expiry as the lock
 * - `fence:<cluster>`         integer, fencing counter (`INCR` on every acquisition; never expires)
 * - `job:<id>`                hash: `record` (JSON body), `fence`, `owner`, `status`, `cluster`,
 *                             `approval` (pending approval id or ""), `ctl:*` (control request),
 *                             `decision:<approvalId>` (JSON decision)
 * - `jobs:all`                sorted set of job ids by `createdAt`
 * - `jobs:unfinished`         sorted set of unfinished job ids by `createdAt`
 * - `audit:<jobId>`           stream of audit entries (capped)
 * - `history:<cluster>`       list of finished-rollout summaries, newest first (capped)
 * - channel `decision:<jobId>` carries the approval id whenever a decision is recorded
 */
export interface RedisKeys {
  readonly prefix: string;
  lock(cluster: string): string;
  lockHolder(cluster: string): string;
  fence(cluster: string): string;
  job(jobId: string): string;
  allJobs(): string;
  unfinishedJobs(): string;
  audit(jobId: string): string;
  history(cluster: string): string;
  decisionChannel(jobId: string): string;
}

/** Builds the key names for one `prefix`; tests pass a random prefix so runs never collide. */
export function createRedisKeys(prefix: string): RedisKeys {
  return {
    prefix,
    lock: (cluster) => `${prefix}lock:${cluster}`,
    lockHolder: (cluster) => `${prefix}lock-holder:${cluster}`,
    fence: (cluster) => `${prefix}fence:${cluster}`,
    job: (jobId) => `${prefix}job:${jobId}`,
    allJobs: () => `${prefix}jobs:all`,
    unfinishedJobs: () => `${prefix}jobs:unfinished`,
    audit: (jobId) => `${prefix}audit:${jobId}`,
    history: (cluster) => `${prefix}history:${cluster}`,
    decisionChannel: (jobId) => `${prefix}decision:${jobId}`,
  };
}
