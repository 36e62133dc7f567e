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

/** `run` checks everything before it creates a job or takes a lock: a refusal leaves nothing in Redis (item 1). */

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const program = { version: "0.0.0", commands: [runCommand] };
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
});
afterAll(() => {
  redis.disconnect();
});

async function configWith(cluster: Record<string, unknown>): Promise<string> {
  const file = join(tmpdir(), `connect-roll-preflight-${randomUUID().slice(0, 8)}.yml`);
  await writeFile(
    file,
    stringify({
      clusters: {
        prod: {
          workers: [{ name: "w1", url: "http://127.0.0.1:1" }],
          executor: { kind: "sim", controlUrl: "http://127.0.0.1:1" },
          connect: { scheduledRebalanceMaxDelayMs: 1000 },
          ...cluster,
        },
      },
    }),
  );
  return file;
}

async function runRefused(cluster: Record<string, unknown>, env: Record<string, string> = {}) {
  const prefix = `test-preflight-${randomUUID().slice(0, 8)}:`;
  const file = await configWith(cluster);
  const io = captureIo({ REDIS_URL, CONNECT_ROLL_REDIS_PREFIX: prefix, PATH: process.env.PATH, ...env });
  const code = await runCli(program, ["run", "--config", file, "prod", "restart", "--yes"], io);
  const keys = await redis.keys(`${prefix}*`);
  return { code, err: io.err(), keys };
}

describe("connect-roll run refuses before it creates a job or takes a lock", () => {
  it("a missing secret (passwordEnv unset): one line, exit 1, no job and no lock", async () => {
    const r = await runRefused({ auth: { basic: { username: "u", passwordEnv: "CONNECT_PW_UNSET" } } });
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n")).toEqual([
      "connect-roll run: cannot start: Connect basic auth: environment variable CONNECT_PW_UNSET is not set",
    ]);
    expect(r.keys).toEqual([]);
  });

  it("every local problem at once: secret and executor program", async () => {
    const r = await runRefused({
      auth: { basic: { username: "u", passwordEnv: "CONNECT_PW_UNSET" } },
      executor: { kind: "command", argv: ["no-such-restart-program-xyz", "{worker}"] },
    });
    expect(r.code).toBe(1);
    const lines = r.err.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("CONNECT_PW_UNSET is not set");
    expect(lines[0]).toContain("no-such-restart-program-xyz is not an executable file on PATH");
    expect(r.keys).toEqual([]);
  });

  it("a cluster where no worker answers", async () => {
    const r = await runRefused({});
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).toMatch(/cannot start: no worker of prod answers \(1 tried; .*127\.0\.0\.1:1/);
    expect(r.keys).toEqual([]);
  });

  it("an unreadable CA file is refused with the config's line, before anything else", async () => {
    const r = await runRefused({ tls: { caFile: "/nonexistent/ca.pem" } });
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).toMatch(
      /is not valid: error clusters\.prod\.tls\.caFile \(line \d+.*cannot read \/nonexistent\/ca\.pem/,
    );
    expect(r.keys).toEqual([]);
  });

  it("a webhook executor whose secret is unset", async () => {
    const r = await runRefused({
      executor: { kind: "webhook", url: "http://127.0.0.1:1/hook", secretEnv: "HOOK_SECRET_UNSET" },
    });
    expect(r.err).toContain("webhook executor: environment variable HOOK_SECRET_UNSET is not set");
    expect(r.keys).toEqual([]);
  });
});
