import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { serveCommand } from "../../src/cli/commands/serve.js";
import { runCli } from "../../src/cli/main.js";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { captureIo } from "../support/capture-io.js";
import { waitFor } from "../support/wait-for.js";
import { startFaultCluster, startRun, summaryOf } from "./fault-harness.js";
import { freePort, type RedisServerProcess, startRedisServer } from "./redis-server-process.js";

/** The ACL a restricted connect-roll user needs (README, "Redis"): keys and channels under its prefix only. */
const CONNECT_ROLL_ACL = [
  "on",
  ">roll-secret",
  "resetkeys",
  "~acl:*",
  "resetchannels",
  "&acl:*",
  "-@all",
  "+ping",
  "+info",
  "+evalsha",
  "+eval",
  "+hgetall",
  "+hget",
  "+zrange",
  "+mget",
  "+xadd",
  "+xrange",
  "+lrange",
  "+subscribe",
  "+unsubscribe",
  "+hsetnx",
  "+sadd",
  "+smembers",
  "+zcard",
  // called by the job store's Lua scripts
  "+del",
  "+exists",
  "+get",
  "+set",
  "+hmget",
  "+hset",
  "+hincrby",
  "+incr",
  "+llen",
  "+lpush",
  "+ltrim",
  "+pexpire",
  "+publish",
  "+time",
  "+zadd",
  "+zrem",
];

const BOT_TOKEN = "xoxb-startup-test";
let fake: FakeSlackWebApi;
let serveConfig: string;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  fake = await startFakeSlackWebApi({ botToken: BOT_TOKEN });
  serveConfig = join(tmpdir(), `connect-roll-startup-${process.pid}.yml`);
  const cluster = simClusterConfig({
    clusterName: "sim",
    workers: [{ name: "worker-1", workerId: "127.0.0.1:9", url: "http://127.0.0.1:9", metricsUrl: "" }],
    controlUrl: "http://127.0.0.1:9",
    delayMs: 1_000,
    restartMs: 200,
  });
  await writeFile(
    serveConfig,
    stringify({
      clusters: { sim: { ...cluster, workers: [{ name: "worker-1", url: "http://127.0.0.1:9" }] } },
    }),
  );
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

function serve(env: Record<string, string>): {
  exit: Promise<number>;
  stop: () => void;
  io: ReturnType<typeof captureIo>;
} {
  const controller = new AbortController();
  const io = {
    ...captureIo({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: "startup-test-signing-secret",
      SLACK_API_URL: fake.apiUrl,
      LOG_LEVEL: "warn",
      ...env,
    }),
    signal: controller.signal,
  };
  const exit = runCli({ version: "0.0.0", commands: [serveCommand] }, ["serve", "--config", serveConfig], io);
  cleanups.push(async () => {
    controller.abort();
    await exit;
  });
  return { exit, stop: () => controller.abort(), io };
}

describe("serve at start", () => {
  it("waits for Redis before its first orphan sweep (Redis started after the bot)", async () => {
    const redisPort = await freePort();
    const port = await freePort();
    const bot = serve({ REDIS_URL: `redis://127.0.0.1:${redisPort}`, PORT: String(port) });
    await waitFor("serve to say it waits for Redis", () => bot.io.err().includes("waiting for redis"));
    const redis: RedisServerProcess = await startRedisServer({
      port: redisPort,
      args: ["--appendonly", "yes"],
    });
    cleanups.push(() => redis.stop());
    await waitFor(
      "the bot to answer /readyz",
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200,
      { timeoutMs: 20_000 },
    );
    bot.stop();
    expect(await bot.exit).toBe(0);
    expect(bot.io.err()).not.toContain("orphan sweep failed");
  }, 40_000);

  it("refuses a Redis that may evict a lease when redis.checks is refuse", async () => {
    const redis = await startRedisServer({
      args: ["--appendonly", "yes", "--maxmemory-policy", "allkeys-lru"],
    });
    cleanups.push(() => redis.stop());
    const bot = serve({
      REDIS_URL: redis.url,
      PORT: String(await freePort()),
      CONNECT_ROLL_REDIS_CHECKS: "refuse",
    });
    expect(await bot.exit).toBe(1);
    expect(bot.io.err()).toContain("maxmemory-policy is allkeys-lru");
    expect(bot.io.err()).toContain("refusing this Redis");
  }, 20_000);
});

describe("run at start", () => {
  it("warns about a Redis without persistence, and refuses it under refuse (nothing locked, a summary line)", async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const cluster = await startFaultCluster("refuse");
    cleanups.push(() => cluster.sim.close());
    const run = startRun(cluster.config, "v3.7.1", {
      REDIS_URL: redis.url,
      CONNECT_ROLL_REDIS_CHECKS: "refuse",
    });
    expect(await run.done).toBe(1);
    expect(run.err()).toContain("has no persistence");
    expect(summaryOf(run)).toMatchObject({ result: "failed" });
    const admin = redis.admin();
    expect(await admin.dbsize()).toBe(0);
    await admin.quit();
    expect(cluster.restartCount()).toBe(0);
  }, 30_000);

  it("a restricted ACL user (README's ACL) runs a whole rollout", async () => {
    const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
    cleanups.push(() => redis.stop());
    const admin = redis.admin();
    await admin.call("ACL", "SETUSER", "connect-roll", ...CONNECT_ROLL_ACL);
    await admin.quit();
    const cluster = await startFaultCluster("acl");
    cleanups.push(() => cluster.sim.close());
    const run = startRun(cluster.config, "v3.7.1", {
      REDIS_URL: `redis://connect-roll:roll-secret@127.0.0.1:${redis.port}`,
      CONNECT_ROLL_REDIS_PREFIX: "acl:",
      CONNECT_ROLL_LOCK_TTL_MS: "3000",
    });
    expect(await run.done).toBe(0);
    expect(summaryOf(run)).toMatchObject({ result: "succeeded" });
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 40_000);

  it("refuses to share a Redis with an older connect-roll's unfinished rollouts (key layout 1), whatever the checks", async () => {
    const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
    cleanups.push(() => redis.stop());
    const admin = redis.admin();
    await admin.zadd("legacy:jobs:unfinished", 1, "cr-old");
    await admin.quit();
    const cluster = await startFaultCluster("legacy");
    cleanups.push(() => cluster.sim.close());
    const run = startRun(cluster.config, "v3.7.1", {
      REDIS_URL: redis.url,
      CONNECT_ROLL_REDIS_PREFIX: "legacy:",
    });
    expect(await run.done).toBe(1);
    expect(run.err()).toContain("holds 1 unfinished rollout of an older connect-roll");
    expect(cluster.restartCount()).toBe(0);
  }, 30_000);
});
