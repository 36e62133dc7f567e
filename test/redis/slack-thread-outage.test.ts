import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { serveCommand } from "../../src/cli/commands/serve.js";
import { runCli } from "../../src/cli/main.js";
import { startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { captureIo } from "../support/capture-io.js";
import { sendSlashCommand } from "../support/send-slash-command.js";
import { waitFor } from "../support/wait-for.js";
import { startFaultCluster } from "./fault-harness.js";
import { freePort, startRedisServer } from "./redis-server-process.js";

const SECRET = "outage-test-signing-secret";
const BOT_TOKEN = "xoxb-outage-test";
const CHANNEL = "COUTAGE01";
const USER = "UOUTAGE01";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe("the Slack thread through a Redis outage", () => {
  it("says 'Paused: Redis unreachable since …' and 'Resumed', and the rollout finishes with one restart per worker", async () => {
    const redis = await startRedisServer({ args: ["--appendonly", "yes"] });
    cleanups.push(() => redis.stop());
    const fake = await startFakeSlackWebApi({ botToken: BOT_TOKEN });
    cleanups.push(() => fake.close());
    const cluster = await startFaultCluster("slack-outage");
    cleanups.push(() => cluster.sim.close());
    // The same cluster config, plus who may use the bot where.
    const config = parse(await readFile(cluster.config, "utf8")) as Record<string, unknown>;
    await writeFile(
      cluster.config,
      stringify({
        ...config,
        slack: { channels: [CHANNEL], requesters: { users: [USER] }, fourEyes: false },
      }),
    );
    const port = await freePort();
    const controller = new AbortController();
    const io = {
      ...captureIo({
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        REDIS_URL: redis.url,
        CONNECT_ROLL_REDIS_PREFIX: "slack:",
        CONNECT_ROLL_LOCK_TTL_MS: "8000",
        PORT: String(port),
        LOG_LEVEL: "silent",
      }),
      signal: controller.signal,
    };
    const exit = runCli(
      { version: "0.0.0", commands: [serveCommand] },
      ["serve", "--config", cluster.config],
      io,
    );
    cleanups.push(async () => {
      controller.abort();
      await exit;
    });
    await waitFor(
      "the bot to answer /readyz",
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200,
      { timeoutMs: 15_000 },
    );
    const response = await sendSlashCommand({
      port,
      secret: SECRET,
      text: "sim v3.7.1",
      user: USER,
      channel: CHANNEL,
      team: "T0OUTAGE",
      triggerId: "trigger-outage-1",
    });
    expect(response.status).toBe(200);
    const texts = () => fake.calls("chat.postMessage").map((c) => String(c.params.text ?? ""));
    await waitFor("the first restart", () => cluster.restartCount() >= 1, { timeoutMs: 20_000 });
    redis.pause();
    await waitFor(
      "the thread's pause note",
      () => texts().some((t) => t.includes("Paused: Redis unreachable since")),
      {
        timeoutMs: 15_000,
      },
    );
    redis.resume();
    await waitFor(
      "the thread's resume note",
      () => texts().some((t) => t.includes("Resumed: Redis answers again")),
      {
        timeoutMs: 15_000,
      },
    );
    await waitFor(
      "every worker restarted once",
      () => cluster.restarts().every((n) => n === 1) && texts().length > 0,
      {
        timeoutMs: 30_000,
      },
    );
    await waitFor(
      "every worker on 3.7.1",
      () => cluster.sim.cluster.state().workers.every((w) => w.version === "3.7.1"),
      {
        timeoutMs: 30_000,
      },
    );
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 90_000);
});
