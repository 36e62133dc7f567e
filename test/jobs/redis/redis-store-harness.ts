import { randomUUID } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import { createRedisJobStore } from "../../../src/jobs/redis/redis-job-store.js";
import { createRedisKeys } from "../../../src/jobs/redis/redis-keys.js";
import type { HarnessOptions, JobStoreHarness } from "../store/job-store-contract.js";

/**
 * The contract suite's subject on a Redis connection (one server, Sentinel or Cluster): two stores sharing a random
 * key prefix, and the ways the suite reaches behind them. `close` ends the connection.
 */
export function redisStoreHarness(
  redis: Redis | Cluster,
  options: HarnessOptions,
  close: (prefix: string) => Promise<void>,
): JobStoreHarness {
  const prefix = `test-${randomUUID()}:`;
  const keys = createRedisKeys(prefix);
  const store = createRedisJobStore({ redis, prefix, ...options });
  const replica = createRedisJobStore({ redis, prefix, ...options });
  return {
    store,
    replica,
    async corruptRecord(jobId, text) {
      const cluster = (await redis.hget(keys.jobCluster(), jobId)) ?? "prod";
      await redis.hset(keys.job(cluster, jobId), "record", text);
    },
    async deleteLockKey(cluster) {
      await redis.del(keys.lock(cluster));
    },
    async decisionListeners(jobId) {
      // A Cluster node counts only its own clients' subscriptions: ask every master.
      const nodes = "nodes" in redis ? redis.nodes("master") : [redis];
      let count = 0;
      for (const node of nodes) {
        const reply = (await node.call("PUBSUB", "NUMSUB", keys.decisionChannel(jobId))) as [string, number];
        count += Number(reply[1]);
      }
      return count;
    },
    async cleanup() {
      await store.close();
      await replica.close();
      await close(prefix);
    },
  };
}
