import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { pino } from "pino";
import { afterAll, beforeAll, describe } from "vitest";
import { connectRedis, createRedisClient } from "../../src/cli/create-redis.js";
import { createRedisJobStore } from "../../src/jobs/redis-job-store.js";
import { createRedisKeys } from "../../src/jobs/redis-keys.js";
import { jobStoreContract } from "../jobs/job-store-contract.js";
import { startRedisCluster } from "./redis-cluster-fixture.js";

/** The whole job-store contract on a 3-master Redis Cluster: every script's keys must share one slot. */
describe.skipIf(!existsSync("/usr/bin/redis-cli"))("job store on a Redis Cluster", () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  jobStoreContract("redis cluster", async (options = {}) => {
    const prefix = `test-${randomUUID()}:`;
    const keys = createRedisKeys(prefix);
    const redis = createRedisClient(cluster.url, pino({ level: "silent" }));
    await connectRedis(redis, cluster.url, new AbortController().signal);
    const store = createRedisJobStore({ redis, prefix, ...options });
    const replica = createRedisJobStore({ redis, prefix, ...options });
    return {
      store,
      replica,
      async corruptRecord(jobId, text) {
        const c = (await redis.hget(keys.jobCluster(), jobId)) ?? "prod";
        await redis.hset(keys.job(c, jobId), "record", text);
      },
      async deleteLockKey(c) {
        await redis.del(keys.lock(c));
      },
      async cleanup() {
        await store.close();
        await replica.close();
        redis.disconnect();
      },
    };
  });
});
