import { hostname } from "node:os";
import type { Cluster, Redis } from "ioredis";
import type { SlackTransport } from "../../chat/app.js";
import { createWebClientSlackWebApi } from "../../chat/web-client-slack-web-api.js";
import { createServeRuntime } from "../../composition/serve-runtime.js";
import { readEnv } from "../../config/env.js";
import { loadValidConfig } from "../../config/load-config.js";
import { isAppError } from "../../core/errors.js";
import { createMemoryJobStore } from "../../jobs/memory/memory-job-store.js";
import { waitForRedis } from "../../jobs/redis/redis-client.js";
import { createRedisJobStore } from "../../jobs/redis/redis-job-store.js";
import { applyRedisChecks } from "../../jobs/redis/redis-settings-check.js";
import { systemClock } from "../../jobs/runner/system-clock.js";
import type { JobStore } from "../../jobs/store/job-store.js";
import { type CliCommand, ExitCode } from "../command.js";
import { createRootLogger } from "../create-logger.js";

export const serveCommand: CliCommand = {
  name: "serve",
  summary: "run the Slack bot (HTTP or Socket Mode)",
  help: `Usage: connect-roll serve [--config FILE]

Runs the Slack bot: /connect-roll commands, the live rollout threads, Approve / Abort buttons.

Environment:
  SLACK_BOT_TOKEN        bot token (xoxb-…), required
  SLACK_SIGNING_SECRET   HTTP mode: verifies requests on /slack/events
  SLACK_APP_TOKEN        Socket Mode (xapp-…, scope connections:write); when set, Socket Mode is used
  REDIS_URL              shared store for locks, jobs and approvals (none: in-process store, ONE replica only)
  PORT                   HTTP port (default 3000); in Socket Mode it serves only /healthz and /readyz
  SLACK_API_URL          base URL of the Web API (sandbox and tests)
  CONNECT_ROLL_REPLICA_ID  this replica's name (default host-pid)
  CONNECT_ROLL_REDIS_PREFIX  prefix of every Redis key (default connect-roll:); the same for run and serve
  CONNECT_ROLL_LOCK_TTL_MS   lease of a cluster lock (default 30000)
  CONNECT_ROLL_ORPHAN_SWEEP_MS  how often a crashed replica's rollouts are looked for (default 15000)
  LOG_LEVEL              fatal|error|warn|info|debug|trace (default info)

Routes (HTTP mode): POST /slack/events, GET /healthz (process), GET /readyz (store reachable, config loaded).
SIGINT/SIGTERM: stops taking commands, lets running rollouts checkpoint and release their locks (another replica
resumes them), flushes Slack messages, closes Redis.

Options:
  --config FILE   configuration file (default: connect-roll.yml)
  -h, --help      show this help`,
  options: { config: { type: "string", default: "connect-roll.yml" } },
  positionals: { min: 0, max: 0, names: [] },
  async run(values, _positionals, io) {
    try {
      const env = readEnv(io.env);
      const logger = createRootLogger({
        level: env.LOG_LEVEL,
        pretty: io.stderr.isTTY === true,
        destination: io.stderr,
      });
      const { config, warnings } = await loadValidConfig(String(values.config), { env: io.env });
      for (const w of warnings) logger.warn({ path: w.path, rule: w.rule }, w.message);
      if (env.SLACK_BOT_TOKEN === undefined) {
        io.stderr.write("connect-roll serve: SLACK_BOT_TOKEN is not set\n");
        return ExitCode.Failed;
      }
      let transport: SlackTransport;
      if (env.SLACK_APP_TOKEN !== undefined)
        transport = { kind: "socket", appToken: env.SLACK_APP_TOKEN, healthPort: env.PORT };
      else if (env.SLACK_SIGNING_SECRET !== undefined)
        transport = { kind: "http", signingSecret: env.SLACK_SIGNING_SECRET };
      else {
        io.stderr.write(
          "connect-roll serve: set SLACK_SIGNING_SECRET (HTTP mode) or SLACK_APP_TOKEN (Socket Mode)\n",
        );
        return ExitCode.Failed;
      }
      const redisUrl = config.redis?.url;
      let redis: Redis | Cluster | undefined;
      let store: JobStore;
      if (redisUrl === undefined) {
        logger.warn(
          "REDIS_URL is not set: using an in-process store. Run ONE replica only: locks and approvals are not shared",
        );
        store = createMemoryJobStore();
      } else {
        // Wait for Redis before anything reads the store (the first orphan sweep runs at start).
        const connected = await waitForRedis(
          { url: redisUrl, tls: config.redis?.tls },
          logger,
          io.signal,
        ).catch(() => null);
        if (connected === null) {
          io.stderr.write("connect-roll serve: interrupted while waiting for Redis\n");
          return ExitCode.Failed;
        }
        redis = connected;
        const refusal = await applyRedisChecks(
          connected,
          env.CONNECT_ROLL_REDIS_CHECKS ?? config.redis?.checks ?? "warn",
          (f) => logger.warn({ code: f.code, node: f.node }, f.message),
          env.CONNECT_ROLL_REDIS_PREFIX,
        );
        if (refusal !== null) {
          connected.disconnect();
          io.stderr.write(`connect-roll serve: ${refusal}\n`);
          return ExitCode.Failed;
        }
        store = createRedisJobStore({ redis, prefix: env.CONNECT_ROLL_REDIS_PREFIX });
      }
      const slackApiUrl = env.SLACK_API_URL === undefined ? undefined : apiBase(env.SLACK_API_URL);
      const api = createWebClientSlackWebApi({
        token: env.SLACK_BOT_TOKEN,
        logger,
        ...(slackApiUrl === undefined ? {} : { slackApiUrl }),
      });
      const runtime = createServeRuntime({
        config,
        store,
        api,
        slack: {
          transport,
          botToken: env.SLACK_BOT_TOKEN,
          ...(slackApiUrl === undefined ? {} : { slackApiUrl }),
        },
        logger,
        replicaId: env.CONNECT_ROLL_REPLICA_ID ?? `${hostname()}-${process.pid}`,
        lockTtlMs: env.CONNECT_ROLL_LOCK_TTL_MS,
        orphanSweepMs: env.CONNECT_ROLL_ORPHAN_SWEEP_MS,
        wallClock: systemClock,
        env: io.env,
      });
      try {
        await runtime.start(env.PORT);
      } catch (err) {
        logger.error({ err }, "the bot could not start (is SLACK_BOT_TOKEN valid and Slack reachable?)");
        await runtime.stop();
        if (redis !== undefined) redis.disconnect();
        io.stderr.write("connect-roll serve: could not start; see the log above\n");
        return ExitCode.Failed;
      }
      await new Promise<void>((resolve) => {
        if (io.signal.aborted) resolve();
        else io.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      await runtime.stop();
      if (redis !== undefined) await redis.quit().catch(() => redis?.disconnect());
      return ExitCode.Ok;
    } catch (e) {
      if (isAppError(e)) {
        io.stderr.write(`connect-roll serve: ${e.message}\n`);
        return ExitCode.Failed;
      }
      throw e;
    }
  },
};

/** `SLACK_API_URL` may be given with or without the trailing `/api/`. */
function apiBase(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith("/api") ? `${trimmed}/` : `${trimmed}/api/`;
}
