import { hostname, userInfo } from "node:os";
import type { Logger } from "pino";
import { formatProblem } from "../config/config-problem.js";
import { readEnv } from "../config/env.js";
import { loadConfigFile } from "../config/load-config.js";
import type { Config } from "../config/schema.js";
import { connectRedis, createRedisClient } from "../jobs/redis/redis-client.js";
import { createRedisJobStore } from "../jobs/redis/redis-job-store.js";
import type { OperatorCommandStore } from "../jobs/store/store-roles.js";
import { unknownClusterText } from "../wording/refusal-text.js";
import type { CliIo } from "./command.js";
import { createRootLogger } from "./create-logger.js";
import { oneLine } from "./one-line.js";

/**
 * What `status`, `abort` and `unlock` share: the config (cluster names), the same Redis and key prefix as the bot
 * and `run`, and who the operator is. Without Redis there is nothing to read: another process's in-process store is
 * out of reach.
 */
export interface OperatorStore {
  readonly config: Config;
  readonly store: OperatorCommandStore;
  readonly logger: Logger;
  /** `user@host (cli)`: the actor in audit lines. */
  readonly operator: string;
  readonly lockTtlMs: number;
  close(): Promise<void>;
}

export type OpenResult = { kind: "ok"; value: OperatorStore } | { kind: "error"; message: string };

/** `user@host (cli)`: who runs a command, in audit lines and fleet records. */
export function operatorName(): string {
  try {
    return `${userInfo().username}@${hostname()} (cli)`;
  } catch {
    return `cli@${hostname()}`;
  }
}

export async function openOperatorStore(file: string, io: CliIo): Promise<OpenResult> {
  let env: ReturnType<typeof readEnv>;
  try {
    env = readEnv(io.env);
  } catch (e) {
    return { kind: "error", message: oneLine((e as Error).message) };
  }
  let config: Config;
  try {
    const parsed = await loadConfigFile(file, { env: io.env });
    if (parsed.kind === "invalid") {
      const first = parsed.problems.find((p) => p.severity === "error");
      return {
        kind: "error",
        message: `${file} is not valid: ${first ? formatProblem(first) : "?"}; see: connect-roll config check --config ${file}`,
      };
    }
    config = parsed.config;
  } catch (e) {
    return { kind: "error", message: oneLine((e as Error).message) };
  }
  const url = env.REDIS_URL ?? config.redis?.url;
  if (url === undefined)
    return {
      kind: "error",
      message:
        "needs Redis: set REDIS_URL (or redis.url in the config) to the bot's Redis; a run without Redis keeps its state in its own process",
    };
  const logger = createRootLogger({
    level: env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL,
    pretty: false,
  });
  let redis: ReturnType<typeof createRedisClient>;
  try {
    // redis.tls from the config applies (CA, client certificate, server name); an unreadable file is an error here.
    redis = createRedisClient({ url, tls: config.redis?.tls }, logger);
    await connectRedis(redis, url, io.signal);
  } catch (e) {
    return { kind: "error", message: (e as Error).message };
  }
  const store = createRedisJobStore({ redis, prefix: env.CONNECT_ROLL_REDIS_PREFIX });
  return {
    kind: "ok",
    value: {
      config,
      store,
      logger,
      operator: operatorName(),
      lockTtlMs: env.CONNECT_ROLL_LOCK_TTL_MS,
      async close() {
        await store.close().catch(() => undefined);
        redis.disconnect();
      },
    },
  };
}

/** "unknown cluster" with the known names, or null when the config has it. */
export function unknownClusterMessage(config: Config, cluster: string): string | null {
  if (config.clusters[cluster] !== undefined) return null;
  return unknownClusterText(cluster, Object.keys(config.clusters));
}
