/**
 * Every Redis key and pub/sub channel name the job store uses, built in one place.
 *
 * Layout 2, under the configurable `prefix` (e.g. `connect-roll:`). Everything a multi-key script touches carries the
 * connect-roll cluster's name as a Redis Cluster hash tag (`{<cluster>}`), so it lives in one hash slot: the scripts
 * run unchanged on one server, behind Sentinel, or on a Redis Cluster.
 * - `lock:{<cluster>}`                string, the lease token (`SET NX PX`), expires with the lease
 * - `lock-holder:{<cluster>}`         hash `{ jobId, owner, since, expiresAt }`, same expiry as the lock
 * - `fence:{<cluster>}`               integer, fencing counter (`INCR` on every acquisition; never expires)
 * - `job:{<cluster>}:<id>`            hash: `record` (JSON body), `fence`, `owner`, `status`, `cluster`,
 *                                     `approval` (pending approval id or ""), `ctl:*` (control request),
 *                                     `decision:<approvalId>` (JSON decision), `slack:*`, `msg:*`
 * - `jobs:{<cluster>}:all`            sorted set of the cluster's job ids by `createdAt`
 * - `jobs:{<cluster>}:unfinished`     sorted set of the cluster's unfinished job ids by `createdAt`
 * - `audit:{<cluster>}:<jobId>`       stream of audit entries (capped)
 * - `history:{<cluster>}`             list of finished-rollout summaries, newest first (capped)
 * - `report-claim:{<cluster>}:<id>`   string, the replica that claimed posting the job's final report (`SET NX PX`),
 *                                     expires with the claim
 * - `record-lost:{<cluster>}:<id>`    string, set by a runner that found the job's record gone (`SET PX`), expires
 * - `fleet-run:<fleet>`               string, the fleet's latest run (JSON), written by the holder of the fleet's lock
 *                                     (the cluster lock `lock:{fleet:<fleet>}`)
 * - `fleet-abort:<fleet>:<runId>`     string, the abort request of that run (JSON, `SET NX`), expires after 30 days
 * - `fleet-stage:<fleet>:<runId>:<n>` string, the answer to stage n's approval prompt (JSON, `SET NX`), 30 days
 * The global indexes, each a single key (one slot), written before the job's own keys and never in a script:
 * - `clusters`                        set of connect-roll cluster names that have jobs
 * - `job-cluster`                     hash job id → cluster name (a job id alone finds its keys)
 * - channel `decision:<jobId>` carries the approval id whenever a decision is recorded
 * - channel `jobs-finished` carries a job's id when a checkpoint records it finished
 * Layout 1 (before hash tags) used `lock:<cluster>`, `job:<id>` and a global `jobs:unfinished`:
 * `legacyUnfinishedJobs` is read at start to refuse sharing a Redis with an older version's running rollouts.
 */
export interface RedisKeys {
  readonly prefix: string;
  lock(cluster: string): string;
  lockHolder(cluster: string): string;
  fence(cluster: string): string;
  job(cluster: string, jobId: string): string;
  allJobs(cluster: string): string;
  unfinishedJobs(cluster: string): string;
  audit(cluster: string, jobId: string): string;
  history(cluster: string): string;
  reportClaim(cluster: string, jobId: string): string;
  recordLost(cluster: string, jobId: string): string;
  fleetRun(fleet: string): string;
  fleetAbort(fleet: string, runId: string): string;
  fleetStage(fleet: string, runId: string, stage: number): string;
  clusters(): string;
  jobCluster(): string;
  decisionChannel(jobId: string): string;
  finishedChannel(): string;
  legacyUnfinishedJobs(): string;
}

/** Builds the key names for one `prefix`; tests pass a random prefix so runs never collide. */
export function createRedisKeys(prefix: string): RedisKeys {
  const tag = (cluster: string) => `{${cluster}}`;
  return {
    prefix,
    lock: (cluster) => `${prefix}lock:${tag(cluster)}`,
    lockHolder: (cluster) => `${prefix}lock-holder:${tag(cluster)}`,
    fence: (cluster) => `${prefix}fence:${tag(cluster)}`,
    job: (cluster, jobId) => `${prefix}job:${tag(cluster)}:${jobId}`,
    allJobs: (cluster) => `${prefix}jobs:${tag(cluster)}:all`,
    unfinishedJobs: (cluster) => `${prefix}jobs:${tag(cluster)}:unfinished`,
    audit: (cluster, jobId) => `${prefix}audit:${tag(cluster)}:${jobId}`,
    history: (cluster) => `${prefix}history:${tag(cluster)}`,
    reportClaim: (cluster, jobId) => `${prefix}report-claim:${tag(cluster)}:${jobId}`,
    recordLost: (cluster, jobId) => `${prefix}record-lost:${tag(cluster)}:${jobId}`,
    fleetRun: (fleet) => `${prefix}fleet-run:${fleet}`,
    fleetAbort: (fleet, runId) => `${prefix}fleet-abort:${fleet}:${runId}`,
    fleetStage: (fleet, runId, stage) => `${prefix}fleet-stage:${fleet}:${runId}:${stage}`,
    clusters: () => `${prefix}clusters`,
    jobCluster: () => `${prefix}job-cluster`,
    decisionChannel: (jobId) => `${prefix}decision:${jobId}`,
    finishedChannel: () => `${prefix}jobs-finished`,
    legacyUnfinishedJobs: () => `${prefix}jobs:unfinished`,
  };
}
