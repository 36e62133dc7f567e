import { Cluster, type Redis } from "ioredis";
import type { Logger } from "pino";
import { redactUrl } from "../../connect/url-credentials.js";
import { AppError, ErrorCode } from "../../core/errors.js";
import { createRedisConnection, type RedisConnectionConfig } from "./redis-connection.js";

/**
 * The Redis client for the job store: every command times out, an outage fails fast (no offline queue) so the store
 * reports `store/unavailable` instead of writing after a lease expired. Until it first connects it does not retry:
 * use `connectRedis`, which reports the real cause (refused, wrong password, TLS) within seconds.
 */
export function createRedisClient(config: string | RedisConnectionConfig, logger: Logger): Redis | Cluster {
  let ready = false;
  // A URL (REDIS_URL) or the YAML's `redis` section; redis+sentinel:// and redis+cluster:// too (redis-connection.ts).
  const redis = createRedisConnection(typeof config === "string" ? { url: config } : config, (times) =>
    ready ? Math.min(times * 200, 2_000) : null,
  );
  redis.once("ready", () => {
    ready = true;
  });
  redis.on("error", (err: Error) => {
    if (ready) logger.warn({ err: { message: err.message } }, "redis error");
  });
  if (!(redis instanceof Cluster))
    reconnectAfterUnaskedEnd(
      redis,
      (attempt, waitMs) => logger.warn({ attempt, waitMs }, "redis client ended unasked: connecting again"),
      () => ready,
    );
  return redis;
}

/**
 * ioredis ends a client for good ("Connection is closed.") when its connector is disconnected while a reconnect is
 * under way: through Sentinel, the failover detector of the lost connection does exactly that when the sentinels
 * announce the new master while the client is still asking them for it. A client that ended without `disconnect()`
 * or `quit()` having been called connects again (backoff up to 5 s), so a replica never loses its store for good.
 */
export function reconnectAfterUnaskedEnd(
  redis: Redis,
  onRetry: (attempt: number, waitMs: number) => void,
  connectedOnce: () => boolean,
): void {
  let asked = false;
  const disconnect = redis.disconnect.bind(redis);
  redis.disconnect = (reconnect = false) => {
    if (!reconnect) asked = true;
    disconnect(reconnect);
  };
  const quit = redis.quit.bind(redis);
  redis.quit = ((...args: Parameters<Redis["quit"]>) => {
    asked = true;
    return quit(...args);
  }) as Redis["quit"];
  let attempt = 0;
  const again = () => {
    if (asked || !connectedOnce()) return;
    const waitMs = Math.min(5_000, 200 * 2 ** Math.min(attempt, 5));
    attempt += 1;
    onRetry(attempt, waitMs);
    setTimeout(() => {
      if (asked || redis.status !== "end") return;
      redis.connect().catch(() => undefined);
    }, waitMs).unref();
  };
  redis.on("end", again);
  redis.on("ready", () => {
    attempt = 0;
  });
}

/**
 * Connects a client made by `createRedisClient` and checks it answers (PING), or disconnects it and throws AppError
 * `store/unavailable` with the cause Redis or the socket gave. Aborting `signal` gives up at once; so
 * does a server that never answers, after `timeoutMs`.
 */
export async function connectRedis(
  redis: Redis | Cluster,
  url: string,
  signal: AbortSignal,
  timeoutMs = 10_000,
): Promise<void> {
  let cause: Error | null = null;
  const onError = (err: Error) => {
    cause ??= err;
  };
  redis.on("error", onError);
  let onAbort: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Error("interrupted"));
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([
      (async () => {
        await redis.connect();
        await redis.ping();
      })(),
      aborted,
    ]);
  } catch (e) {
    redis.disconnect();
    let reason = signal.aborted ? "interrupted" : ((cause ?? (e as Error)) as Error).message;
    if (!signal.aborted && url.startsWith("rediss") && /ETIMEDOUT/.test(reason))
      reason += " (no TLS handshake: does the server speak TLS on that port?)";
    if (!signal.aborted && url.startsWith("rediss") && /certificate required|alert number 116/.test(reason))
      reason = "the server requires a client certificate (redis.tls.certFile and keyFile)";
    else if (!signal.aborted && url.startsWith("rediss") && /ECONNRESET/.test(reason))
      reason +=
        " (the server ended the TLS handshake: does it require a client certificate? redis.tls.certFile and keyFile)";
    throw new AppError(ErrorCode.StoreUnavailable, `cannot reach Redis at ${redactUrl(url)}: ${reason}`, {
      cause: cause ?? e,
      retryable: true,
    });
  } finally {
    clearTimeout(timer);
    redis.off("error", onError);
    signal.removeEventListener("abort", onAbort);
    aborted.catch(() => undefined);
  }
}

/**
 * `serve`'s start: connects like `connectRedis`, but keeps trying (backoff up to 5 s, every failure logged with its
 * cause) until Redis answers or `signal` aborts, so the first orphan sweep never runs against a store that is not
 * ready. Returns the connected client; throws only when aborted.
 */
export async function waitForRedis(
  config: RedisConnectionConfig,
  logger: Logger,
  signal: AbortSignal,
): Promise<Redis | Cluster> {
  for (let attempt = 0; ; attempt++) {
    const redis = createRedisClient(config, logger);
    try {
      await connectRedis(redis, config.url, signal);
      if (attempt > 0) logger.info({ attempts: attempt + 1 }, "redis answers");
      return redis;
    } catch (err) {
      if (signal.aborted) throw err;
      logger.warn({ err: { message: (err as Error).message } }, "waiting for redis");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(5_000, 250 * 2 ** Math.min(attempt, 5)));
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  }
}
