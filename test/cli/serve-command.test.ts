import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { serveCommand } from "../../src/cli/commands/serve.js";
import { runCli } from "../../src/cli/main.js";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { createRedisJobStore } from "../../src/jobs/redis/redis-job-store.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { captureIo } from "../support/capture-io.js";
import { sendSlashCommand } from "../support/send-slash-command.js";
import { waitFor } from "../support/wait-for.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const SECRET = "serve-test-signing-secret";
const BOT_TOKEN = "xoxb-serve-test";
const CHANNEL = "CSERVE001";
const USER = "USERVE001";

let fake: FakeSlackWebApi;
let redis: Redis;
let config: string;
const prefix = `test-serve-${randomUUID().slice(0, 8)}:`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

beforeAll(async () => {
  fake = await startFakeSlackWebApi({ botToken: BOT_TOKEN });
  redis = new Redis(REDIS_URL);
  config = join(tmpdir(), `connect-roll-serve-${process.pid}.yml`);
  const cluster = simClusterConfig({
    clusterName: "sim",
    // Nothing listens there: the lock refusal comes before the cluster is read.
    workers: [
      {
        name: "worker-1",
        workerId: "127.0.0.1:9",
        url: "http://127.0.0.1:9",
        metricsUrl: "http://127.0.0.1:9/metrics",
      },
    ],
    controlUrl: "http://127.0.0.1:9",
    delayMs: 1_000,
    restartMs: 200,
  });
  await writeFile(
    config,
    stringify({ slack: { channels: [CHANNEL], requesters: { users: [USER] } }, clusters: { sim: cluster } }),
  );
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await fake.close();
});

describe("connect-roll serve", () => {
  it("locks the same Redis keys as run: CONNECT_ROLL_REDIS_PREFIX is honoured (no split brain)", async () => {
    // What `connect-roll run` does with this prefix: it holds the cluster's lock.
    const cliStore = createRedisJobStore({ redis, prefix });
    const held = await cliStore.acquireLock("sim", { jobId: "cli-job", owner: "cli:host:1", ttlMs: 60_000 });
    expect(held.kind).toBe("acquired");

    const port = await freePort();
    const controller = new AbortController();
    const io = {
      ...captureIo({
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        REDIS_URL,
        CONNECT_ROLL_REDIS_PREFIX: prefix,
        PORT: String(port),
        LOG_LEVEL: "silent",
      }),
      signal: controller.signal,
    };
    const program = { version: "0.0.0", commands: [serveCommand] };
    const exit = runCli(program, ["serve", "--config", config], io);
    try {
      await waitFor(
        "serve to answer /healthz",
        async () => {
          const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
          return r?.status === 200;
        },
        { timeoutMs: 15_000 },
      );
      const response = await sendSlashCommand({
        port,
        secret: SECRET,
        text: "sim restart",
        user: USER,
        channel: CHANNEL,
        team: "T0SERVE",
        triggerId: "trigger-serve-1",
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("locked by another rollout");
      expect(fake.calls("chat.postMessage")).toHaveLength(0);
      // The lock is still the CLI's.
      expect((await cliStore.readLock("sim"))?.jobId).toBe("cli-job");
    } finally {
      controller.abort();
      expect(await exit).toBe(0);
    }
  });
});
