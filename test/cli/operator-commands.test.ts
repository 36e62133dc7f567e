import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { syntheticRollout } from "../../bench/chart/synthetic-rollout.js";
import { abortCommand } from "../../src/cli/commands/abort.js";
import { configCheckCommand } from "../../src/cli/commands/config-check.js";
import { statusCommand } from "../../src/cli/commands/status.js";
import { unlockCommand } from "../../src/cli/commands/unlock.js";
import { runCli } from "../../src/cli/main.js";
import { createRedisJobStore } from "../../src/jobs/redis/redis-job-store.js";
import { createLockKeeper } from "../../src/jobs/runner/lock-keeper.js";
import type { JobStore } from "../../src/jobs/store/job-store.js";
import { aJob } from "../jobs/store/job-fixtures.js";
import { captureIo } from "../support/capture-io.js";

/** Operators without Slack: status, abort and unlock against the bot's Redis. */

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const program = { version: "0", commands: [statusCommand, abortCommand, unlockCommand, configCheckCommand] };
const prefix = `test-operator-${randomUUID().slice(0, 8)}:`;
const env = { REDIS_URL, CONNECT_ROLL_REDIS_PREFIX: prefix, CONNECT_ROLL_LOCK_TTL_MS: "1500" };
let redis: Redis;
let store: JobStore;
let config: string;

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { commandTimeout: 2000, maxRetriesPerRequest: 1 });
  store = createRedisJobStore({ redis, prefix });
  config = join(tmpdir(), `connect-roll-operator-${process.pid}.yml`);
  const cluster = (n: number) => ({
    workers: [{ name: "w1", url: `http://127.0.0.1:${n}` }],
    executor: { kind: "sim", controlUrl: "http://127.0.0.1:1" },
  });
  await writeFile(
    config,
    stringify({ clusters: { prod: cluster(2), live: cluster(3), idle: cluster(4), charted: cluster(5) } }),
  );
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await store.close();
  redis.disconnect();
});

async function cli(args: string[]) {
  const io = captureIo(env);
  const code = await runCli(program, [...args, "--config", config], io);
  return { code, out: io.out(), err: io.err() };
}

describe("operator commands", () => {
  it("status: nothing runs", async () => {
    const r = await cli(["status"]);
    expect(r).toMatchObject({ code: 0, out: "no rollout is running and no cluster is locked\n" });
  });

  it("status, abort and unlock of a rollout whose owner is gone (its lease not yet expired)", async () => {
    const job = aJob({ cluster: "prod", owner: "bot-1:42" });
    await store.createJob(job);
    const lock = await store.acquireLock("prod", { jobId: job.id, owner: "bot-1:42", ttlMs: 60_000 });
    expect(lock.kind).toBe("acquired");

    const status = await cli(["status"]);
    expect(status.code).toBe(0);
    expect(status.out).toContain(`prod · running · target ? · job ${job.id} by U123`);
    expect(status.out).toMatch(/lock held by bot-1:42 \(lease (\d+m)?\d+s left\)/);
    const json = JSON.parse((await cli(["status", "prod", "--json"])).out) as {
      clusters: { cluster: string }[];
    };
    expect(json.clusters.map((c) => c.cluster)).toEqual(["prod"]);

    const abort = await cli(["abort", "prod"]);
    expect(abort.code).toBe(0);
    expect(abort.out).toContain(`abort requested for prod (job ${job.id})`);
    expect((await store.loadJob(job.id)).control?.abort).toBe(true);

    expect((await cli(["unlock", "prod"])).code).toBe(2);
    const unlock = await cli(["unlock", "prod", "--reason", "bot-1 was deleted with its node"]);
    expect(unlock.code).toBe(0);
    expect(unlock.out).toContain("released prod's lock");
    expect(await store.readLock("prod")).toBeNull();
    const audit = await store.readAudit(job.id);
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(["abort-requested", "lock-force-released"]),
    );
    expect(audit.find((a) => a.action === "lock-force-released")?.actor).toContain(
      "(cli): bot-1 was deleted with its node",
    );
    expect((await cli(["status", "prod"])).out).toContain("interrupted: no replica holds its lock");
  });

  it("unlock is refused while a live owner renews the lease", async () => {
    const job = aJob({ cluster: "live" });
    await store.createJob(job);
    const acquired = await store.acquireLock("live", { jobId: job.id, owner: "bot-2:7", ttlMs: 1_500 });
    if (acquired.kind !== "acquired") throw new Error("lock not acquired");
    const keeper = createLockKeeper({
      store,
      lease: acquired.lease,
      ttlMs: 1_500,
      logger: pino({ level: "silent" }),
      onLost: () => undefined,
    });
    try {
      const r = await cli(["unlock", "live", "--reason", "looks stuck"]);
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        "is being renewed by bot-2:7, a live owner; stop it with connect-roll abort live",
      );
      expect((await store.readLock("live"))?.jobId).toBe(job.id);
    } finally {
      keeper.stop();
      await store.releaseLock(acquired.lease);
    }
  });

  it("refuses an unknown cluster and a missing job, one line each", async () => {
    expect(await cli(["abort", "nope"])).toMatchObject({ code: 2 });
    const none = await cli(["abort", "idle"]);
    expect(none.code).toBe(1);
    expect(none.err).toBe("connect-roll abort: no rollout of idle is running; see connect-roll status\n");
  });

  it("status --chart writes the chart of the cluster's last rollout; a bad extension or no cluster is a usage error", async () => {
    const finished = syntheticRollout({ workers: 3 });
    const state = { ...finished, cluster: "charted" };
    await store.createJob(aJob({ cluster: "charted", status: "succeeded", state }));
    const file = join(tmpdir(), `connect-roll-status-chart-${process.pid}.svg`);
    const written = await cli(["status", "charted", "--chart", file]);
    expect(written.code).toBe(0);
    expect(written.err).toBe(`connect-roll status: chart written to ${file}\n`);
    const svg = await readFile(file, "utf8");
    expect(svg).toContain("charted → v3.9.1: succeeded");
    expect(svg).toContain("worker-3 (leader)");

    expect(await cli(["status", "charted", "--chart", "out.jpg"])).toMatchObject({
      code: 2,
      err: 'connect-roll status: --chart must name a .svg or .png file (got "out.jpg")\n',
    });
    expect(await cli(["status", "--chart", file])).toMatchObject({
      code: 2,
      err: "connect-roll status: --chart needs a CLUSTER\n",
    });
    expect(await cli(["status", "idle", "--chart", file])).toMatchObject({
      code: 1,
      err: "connect-roll status: no rollout of idle to chart\n",
    });
  });

  it("without Redis they say so", async () => {
    const io = captureIo({});
    expect(await runCli(program, ["status", "--config", config], io)).toBe(1);
    expect(io.err()).toContain("connect-roll status: needs Redis: set REDIS_URL");
  });

  it("config --help lists its subcommands", async () => {
    const io = captureIo();
    expect(await runCli(program, ["config", "--help"], io)).toBe(0);
    expect(io.out()).toContain("config check  validate a configuration file");
  });
});
