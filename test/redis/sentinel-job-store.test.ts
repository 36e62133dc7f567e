import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe } from "vitest";
import { connectRedis, createRedisClient } from "../../src/cli/create-redis.js";
import { createRedisJobStore } from "../../src/jobs/redis-job-store.js";
import { createRedisKeys } from "../../src/jobs/redis-keys.js";
import { jobStoreContract } from "../jobs/job-store-contract.js";
import { SENTINEL_BIN, type SentinelGroup, startSentinelGroup } from "./redis-sentinel-fixture.js";

/** The whole job-store contract through Sentinel (redis+sentinel://): the master found by the sentinels. */
describe.skipIf(SENTINEL_BIN === null)("job store through Redis Sentinel", () => {
  let group: SentinelGroup;
  beforeAll(async () => {
    group = await startSentinelGroup();
  }, 60_000);
  afterAll(async () => {
    await group?.stop();
  });

  jobStoreContract("redis sentinel", async (options = {}) => {
    const prefix = `test-${randomUUID()}:`;
    const keys = createRedisKeys(prefix);
    const redis = createRedisClient(group.url, pino({ level: "silent" }));
    await connectRedis(redis, group.url, new AbortController().signal);
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
