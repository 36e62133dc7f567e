import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import { captureIo } from "../support/capture-io.js";

/**
 * `run` applies `/connect-roll`'s change windows (the same use-case, src/usecases/prepare-rollout.ts): outside them it
 * refuses before its preflight, so it neither reads the cluster nor touches Redis.
 */

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const program = { version: "0.0.0", commands: [runCommand] };
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
/** Three days from now (UTC), one minute long: never open while the test runs. */
const farDay = DAYS[(new Date().getUTCDay() + 3) % 7] ?? "sun";
const closed = [{ days: [farDay], start: "00:00", end: "00:01", timezone: "UTC" }];
const nextOpening = `${farDay.charAt(0).toUpperCase()}${farDay.slice(1)} 00:00 UTC`;
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
});
afterAll(() => {
  redis.disconnect();
});

async function run(config: Record<string, unknown>, extra: string[] = []) {
  const file = join(tmpdir(), `connect-roll-window-${randomUUID().slice(0, 8)}.yml`);
  await writeFile(file, stringify(config));
  const prefix = `test-window-${randomUUID().slice(0, 8)}:`;
  const io = captureIo({ REDIS_URL, CONNECT_ROLL_REDIS_PREFIX: prefix, PATH: process.env.PATH });
  const code = await runCli(program, ["run", "--config", file, "prod", "restart", "--yes", ...extra], io);
  return { code, out: io.out(), err: io.err(), keys: await redis.keys(`${prefix}*`) };
}

/** No worker answers on 127.0.0.1:1: a run that got past the window check fails in its preflight instead. */
const prod = (access: Record<string, unknown> = {}) => ({
  workers: [{ name: "w1", url: "http://127.0.0.1:1" }],
  executor: { kind: "sim", controlUrl: "http://127.0.0.1:1" },
  connect: { scheduledRebalanceMaxDelayMs: 1000 },
  ...access,
});

describe("connect-roll run and the change windows", () => {
  it("outside the change window: refused before the preflight, one line, exit 1, nothing in Redis", async () => {
    const r = await run({ slack: { changeWindows: closed }, clusters: { prod: prod() } });
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n")).toEqual([
      `connect-roll run: prod is outside its change window (slack.changeWindows, or the cluster's access.changeWindows); the next window opens ${nextOpening}`,
    ]);
    expect(r.out).toBe(
      `summary: failed: not started: prod is outside its change window (slack.changeWindows, or the cluster's access.changeWindows); the next window opens ${nextOpening}\n`,
    );
    expect(r.keys).toEqual([]);
  });

  it("--json: the summary object says failed, with the reason", async () => {
    const r = await run({ slack: { changeWindows: closed }, clusters: { prod: prod() } }, ["--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({
      kind: "summary",
      result: "failed",
      cluster: "prod",
      target: "restart",
      reason: expect.stringContaining(`the next window opens ${nextOpening}`),
    });
  });

  it("the cluster's own windows replace the global ones: open there, the run goes on to its preflight", async () => {
    const always = [
      { days: [...DAYS], start: "00:00", end: "12:00", timezone: "UTC" },
      { days: [...DAYS], start: "12:00", end: "00:00", timezone: "UTC" },
    ];
    const r = await run({
      slack: { changeWindows: closed },
      clusters: { prod: prod({ access: { changeWindows: always } }) },
    });
    expect(r.code).toBe(1);
    expect(r.err).not.toContain("change window");
    expect(r.err).toMatch(/cannot start: no worker of prod answers/);
    expect(r.keys).toEqual([]);
  });

  it("the Slack channel and requester lists do not apply to a terminal user", async () => {
    const r = await run({
      slack: { channels: ["C0123456789"], requesters: { users: ["U0123456789"] } },
      clusters: { prod: prod() },
    });
    expect(r.err).not.toMatch(/channel|requesters/);
    expect(r.err).toMatch(/cannot start: no worker of prod answers/);
  });
});
