import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { ErrorCode, isAppError } from "../../../src/core/errors.js";
import { createRedisJobStore } from "../../../src/jobs/redis/redis-job-store.js";
import { jobStoreContract } from "../store/job-store-contract.js";
import { redisStoreHarness } from "./redis-store-harness.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

jobStoreContract("redis", async (options = {}) => {
  const redis = new Redis(REDIS_URL, { commandTimeout: 2000, maxRetriesPerRequest: 1 });
  return redisStoreHarness(redis, options, async (prefix) => {
    const found = await redis.keys(`${prefix}*`);
    if (found.length > 0) await redis.del(...found);
    await redis.quit();
  });
});

describe("createRedisJobStore when Redis is unreachable", () => {
  it("reports store/unavailable, retryable", async () => {
    const redis = new Redis({
      host: "127.0.0.1",
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const store = createRedisJobStore({ redis, prefix: "unreachable:" });
    const error = await store.ping().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAppError(error, ErrorCode.StoreUnavailable)).toBe(true);
    expect(isAppError(error) && error.retryable).toBe(true);
    await expect(store.acquireLock("prod", { jobId: "j", owner: "o", ttlMs: 100 })).rejects.toSatisfy(
      (e: unknown) => isAppError(e, ErrorCode.StoreUnavailable),
    );
    await store.close();
    redis.disconnect();
  });
});
