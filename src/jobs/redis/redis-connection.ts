import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "node:tls";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { parseRedisUrl, type RedisTarget } from "../../config/redis-url.js";
import { AppError, ErrorCode } from "../../core/errors.js";

/** `redis` in the YAML (or `REDIS_URL`): where the job store lives and how to reach it. */
export interface RedisConnectionConfig {
  readonly url: string;
  readonly tls?:
    | {
        /** PEM file of the CA(s) that signed the servers' certificates (default: the system's). */
        readonly caFile?: string | undefined;
        /** Client certificate and key (PEM) for mutual TLS. */
        readonly certFile?: string | undefined;
        readonly keyFile?: string | undefined;
        /** The name the servers' certificates carry, when it is not the host connected to (SNI and verification). */
        readonly serverName?: string | undefined;
      }
    | undefined;
}

/** Every command times out, an outage fails fast (no offline queue): the store reports it instead of queueing. */
const COMMON: RedisOptions = {
  commandTimeout: 2_000,
  connectTimeout: 5_000,
  maxRetriesPerRequest: 2,
  enableOfflineQueue: false,
  lazyConnect: true,
};

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new AppError(
      ErrorCode.ConfigInvalid,
      `redis.tls.${what}: cannot read ${path}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** Node TLS options from the config; undefined when the URL is not TLS and nothing is configured. */
function tlsOptionsFor(config: RedisConnectionConfig, urlTls: boolean): ConnectionOptions | undefined {
  const t = config.tls;
  if (!urlTls && t === undefined) return undefined;
  if (!urlTls)
    throw new AppError(
      ErrorCode.ConfigInvalid,
      "redis.tls is set but the URL is not TLS: use rediss:// (or rediss+sentinel://, rediss+cluster://)",
    );
  return {
    ...(t?.caFile ? { ca: readPem(t.caFile, "caFile") } : {}),
    ...(t?.certFile ? { cert: readPem(t.certFile, "certFile") } : {}),
    ...(t?.keyFile ? { key: readPem(t.keyFile, "keyFile") } : {}),
    ...(t?.serverName ? { servername: t.serverName } : {}),
  };
}

/** The parsed URL, or AppError `config/invalid` saying what is wrong with it. */
function redisTargetOf(url: string): RedisTarget {
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) throw new AppError(ErrorCode.ConfigInvalid, `REDIS_URL / redis.url: ${parsed.error}`);
  return parsed.target;
}

/**
 * A lazily connecting client for the job store: one server, a Sentinel-managed master (failover followed by ioredis:
 * it asks the sentinels for the new master and reconnects), or a Redis Cluster. `retry(times)` is the reconnect
 * strategy (null: give up), applied to servers, sentinels and the cluster alike.
 */
export function createRedisConnection(
  config: RedisConnectionConfig,
  retry: (times: number) => number | null,
): Redis | Cluster {
  const target = redisTargetOf(config.url);
  const tls = tlsOptionsFor(config, target.tls);
  switch (target.kind) {
    case "standalone":
      return new Redis(config.url, { ...COMMON, retryStrategy: retry, ...(tls ? { tls } : {}) });
    case "sentinel":
      return new Redis({
        ...COMMON,
        sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
        name: target.masterName,
        db: target.db,
        ...(target.username === null ? {} : { username: target.username }),
        ...(target.password === null ? {} : { password: target.password }),
        retryStrategy: retry,
        sentinelRetryStrategy: retry,
        // Only ever talk to the master: a replica's writes fail and its reads may be stale.
        role: "master",
        // Follow a failover at once: listen to the sentinels' +switch-master, and reconnect (asking the sentinels for
        // the master again) when the server we talk to was demoted and refuses writes.
        failoverDetector: true,
        reconnectOnError: (err: Error) => (err.message.startsWith("READONLY") ? 2 : false),
        ...(tls ? { tls, sentinelTLS: tls, enableTLSForSentinelMode: true } : {}),
      });
    case "cluster":
      return new Cluster(
        target.nodes.map((n) => ({ host: n.host, port: n.port })),
        {
          lazyConnect: true,
          enableOfflineQueue: false,
          maxRedirections: 16,
          retryDelayOnFailover: 200,
          retryDelayOnClusterDown: 200,
          clusterRetryStrategy: retry,
          redisOptions: {
            commandTimeout: COMMON.commandTimeout ?? 2_000,
            connectTimeout: COMMON.connectTimeout ?? 5_000,
            maxRetriesPerRequest: 2,
            ...(target.username === null ? {} : { username: target.username }),
            ...(target.password === null ? {} : { password: target.password }),
            ...(tls ? { tls } : {}),
          },
        },
      );
  }
}
