import { pino } from "pino";
import { afterAll, beforeAll, describe } from "vitest";
import { connectRedis, createRedisClient } from "../../src/jobs/redis/redis-client.js";
import { redisStoreHarness } from "../jobs/redis/redis-store-harness.js";
import { jobStoreContract } from "../jobs/store/job-store-contract.js";
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
    const redis = createRedisClient(group.url, pino({ level: "silent" }));
    await connectRedis(redis, group.url, new AbortController().signal);
    return redisStoreHarness(redis, options, async () => redis.disconnect());
  });
});
