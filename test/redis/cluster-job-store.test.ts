import { existsSync } from "node:fs";
import { pino } from "pino";
import { afterAll, beforeAll, describe } from "vitest";
import { connectRedis, createRedisClient } from "../../src/jobs/redis/redis-client.js";
import { redisStoreHarness } from "../jobs/redis/redis-store-harness.js";
import { jobStoreContract } from "../jobs/store/job-store-contract.js";
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
    const redis = createRedisClient(cluster.url, pino({ level: "silent" }));
    await connectRedis(redis, cluster.url, new AbortController().signal);
    return redisStoreHarness(redis, options, async () => redis.disconnect());
  });
});
