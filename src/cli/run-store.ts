import type { Cluster, Redis } from "ioredis";
import type { Logger } from "pino";
import type { readEnv } from "../config/env.js";
import type { Config } from "../config/schema.js";
import { createMemoryJobStore } from "../jobs/memory/memory-job-store.js";
import { connectRedis, createRedisClient } from "../jobs/redis/redis-client.js";
import { createRedisJobStore } from "../jobs/redis/redis-job-store.js";
import { applyRedisChecks } from "../jobs/redis/redis-settings-check.js";
import type { JobStore } from "../jobs/store/job-store.js";
import type { CliIo } from "./command.js";

export type RunStore =
  | { readonly kind: "ok"; readonly store: JobStore; readonly redis: Redis | Cluster | null }
  /** Redis did not answer, or its settings are refused (`redis.checks: refuse`); nothing is left open. */
  | { readonly kind: "error"; readonly message: string };

/**
 * `run`'s job store: the bot's Redis when `REDIS_URL` (or `redis.url`) names one, connected and its settings checked
 * (warnings on stderr); else an in-process store, with a warning that nothing guards against a concurrent rollout.
 */
export async function openRunStore(
  io: CliIo,
  env: ReturnType<typeof readEnv>,
  config: Config,
  logger: Logger,
): Promise<RunStore> {
  const url = env.REDIS_URL ?? config.redis?.url;
  if (!url) {
    io.stderr.write(
      "connect-roll run: no REDIS_URL: using an in-process store; this run is not protected against a concurrent rollout from another process\n",
    );
    return { kind: "ok", store: createMemoryJobStore(), redis: null };
  }
  const redis = createRedisClient({ url, tls: config.redis?.tls }, logger);
  let refusal: string | null;
  try {
    await connectRedis(redis, url, io.signal);
    refusal = await applyRedisChecks(
      redis,
      env.CONNECT_ROLL_REDIS_CHECKS ?? config.redis?.checks ?? "warn",
      (f) => io.stderr.write(`connect-roll run: WARNING: ${f.message}\n`),
      env.CONNECT_ROLL_REDIS_PREFIX,
    );
  } catch (e) {
    redis.disconnect();
    return { kind: "error", message: (e as Error).message };
  }
  if (refusal !== null) {
    redis.disconnect();
    return { kind: "error", message: refusal };
  }
  return { kind: "ok", store: createRedisJobStore({ redis, prefix: env.CONNECT_ROLL_REDIS_PREFIX }), redis };
}
