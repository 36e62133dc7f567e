import { Redis } from "ioredis";
import type { Logger } from "pino";

/**
 * The Redis client for the job store: every command times out, an outage fails fast (no offline queue) so the store
 * reports `store/unavailable` instead of writing after a lease expired.
 */
export function createRedisClient(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    commandTimeout: 2_000,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: false,
    lazyConnect: true,
  });
  redis.on("error", (err: Error) => logger.warn({ err: { message: err.message } }, "redis error"));
  return redis;
}
