import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../support/wait-for.js";
import {
  type FaultCluster,
  type RunHandle,
  startFaultCluster,
  startRun,
  summaryOf,
} from "./fault-harness.js";
import { type RedisServerProcess, startRedisServer } from "./redis-server-process.js";

/**
 * Rollouts through Redis faults, each on a redis-server of its own (own loopback port, stopped by pid) and a
 * simulated cluster over real HTTP. Every test asserts: no worker restarted twice, one runner at a time, and what the
 * user is told (the summary line and its resume command).
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function setup(
  name: string,
  lockTtlMs: number,
  redisArgs: readonly string[] = [],
): Promise<{ redis: RedisServerProcess; cluster: FaultCluster; env: Record<string, string> }> {
  const redis = await startRedisServer({ args: redisArgs });
  cleanups.push(() => redis.stop());
  const cluster = await startFaultCluster(name);
  cleanups.push(() => cluster.sim.close());
  const env = {
    REDIS_URL: redis.url,
    CONNECT_ROLL_REDIS_PREFIX: "fault:",
    CONNECT_ROLL_LOCK_TTL_MS: String(lockTtlMs),
  };
  return { redis, cluster, env };
}

function track(run: RunHandle): RunHandle {
  cleanups.push(async () => {
    run.interrupt();
    await run.done;
  });
  return run;
}

const eachAtMostOnce = (cluster: FaultCluster) => expect(cluster.restarts().every((n) => n <= 1)).toBe(true);

describe("a rollout through Redis faults", () => {
  it("SIGSTOP shorter than the lease: the run pauses, says so, resumes and succeeds; a second run meanwhile is refused", async () => {
    const { redis, cluster, env } = await setup("stop-short", 8_000);
    const run = track(startRun(cluster.config, "v3.7.1", env));
    await waitFor("the first restart", () => cluster.restartCount() >= 1, { timeoutMs: 20_000 });
    redis.pause();
    // Long enough that a command times out (2 s): the run sees the outage, and keeps its lease.
    await waitFor("the run to report store-unreachable", () =>
      run.events().some((e) => e.kind === "store-unreachable"),
    );
    const restartsDuringOutage = cluster.restartCount();
    redis.resume();
    // One runner at a time: another run of the same cluster is refused while the first holds the lease.
    const other = startRun(cluster.config, "v3.7.1", env);
    expect(await other.done).toBe(1);
    expect(other.err()).toContain("is locked by job");
    expect(await run.done).toBe(0);
    const events = run.events();
    expect(events.some((e) => e.kind === "store-recovered")).toBe(true);
    expect(summaryOf(run)).toMatchObject({ result: "succeeded" });
    expect(restartsDuringOutage).toBeLessThanOrEqual(cluster.restartCount());
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 60_000);

  it("SIGSTOP longer than the lease: the run stops restarting, says interrupted with the resume command; the rerun finishes", async () => {
    const { redis, cluster, env } = await setup("stop-long", 3_000);
    const first = track(startRun(cluster.config, "v3.7.1", env));
    await waitFor("the first restart", () => cluster.restartCount() >= 1, { timeoutMs: 20_000 });
    redis.pause();
    expect(await first.done).toBe(1);
    const restartsByFirst = cluster.restartCount();
    const summary = summaryOf(first);
    expect(summary).toMatchObject({ result: "interrupted" });
    expect(String(summary?.resume)).toContain(`run --config ${cluster.config} sim v3.7.1 --yes --json`);
    expect(first.events().some((e) => e.kind === "store-unreachable")).toBe(true);
    expect(first.events().find((e) => e.kind === "rollout-interrupted")).toMatchObject({ why: "lease-lost" });
    redis.resume();
    // One runner at a time: the first run has ended (its lease expired) before the second one starts.
    const second = track(startRun(cluster.config, "v3.7.1", env));
    expect(await second.done).toBe(0);
    expect(second.events().some((e) => e.kind === "rollout-taken-over")).toBe(true);
    expect(summaryOf(second)).toMatchObject({ result: "succeeded" });
    expect(restartsByFirst).toBeGreaterThanOrEqual(1);
    eachAtMostOnce(cluster);
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 60_000);

  it("SIGKILL without persistence (the lock and the job are gone): a plain restart's rerun skips the workers already restarted", async () => {
    const { redis, cluster, env } = await setup("kill-no-aof", 3_000);
    const first = track(startRun(cluster.config, "restart", env));
    await waitFor("the second restart", () => cluster.restartCount() >= 2, { timeoutMs: 20_000 });
    await redis.kill();
    await redis.restart();
    expect(await first.done).toBe(1);
    const summary = summaryOf(first);
    expect(summary).toMatchObject({ result: "interrupted" });
    expect(first.events().find((e) => e.kind === "rollout-interrupted")?.why).toBe("record-lost");
    const resume = String(summary?.resume);
    expect(resume).toContain("--since ");
    // The rerun is a new job (Redis forgot the old one): the cluster tells it which workers are done.
    const args = resume.split(" ").slice(resume.split(" ").indexOf("restart") + 1);
    const second = track(startRun(cluster.config, "restart", env, args));
    expect(await second.done).toBe(0);
    const skipped = second.events().filter((e) => e.kind === "step-skipped");
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    expect(String(skipped[0]?.reason)).toContain("already restarted since the rollout began");
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 60_000);

  it("SIGKILL with AOF (appendfsync always) and a restart within the lease: the run keeps its lock and succeeds", async () => {
    const { redis, cluster, env } = await setup("kill-aof", 5_000, [
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
    ]);
    const run = track(startRun(cluster.config, "v3.7.1", env));
    await waitFor("the first restart", () => cluster.restartCount() >= 1, { timeoutMs: 20_000 });
    await redis.kill();
    await waitFor("the run to report store-unreachable", () =>
      run.events().some((e) => e.kind === "store-unreachable"),
    );
    await redis.restart();
    expect(await run.done).toBe(0);
    expect(run.events().some((e) => e.kind === "store-recovered")).toBe(true);
    expect(summaryOf(run)).toMatchObject({ result: "succeeded" });
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 60_000);

  it("FLUSHALL mid-rollout: the run stops at its next write (lock lost); the rerun's new job skips upgraded workers", async () => {
    const { redis, cluster, env } = await setup("flushall", 3_000);
    const first = track(startRun(cluster.config, "v3.7.1", env));
    await waitFor("the second restart", () => cluster.restartCount() >= 2, { timeoutMs: 20_000 });
    const admin = redis.admin();
    await admin.flushall();
    await admin.quit();
    expect(await first.done).toBe(1);
    expect(summaryOf(first)).toMatchObject({ result: "interrupted" });
    expect(first.err()).toContain("the cluster lock was lost");
    // Told why: the record went with the lock, whether the next renewal or the next checkpoint found it gone, so
    // no replica can resume it (the thread must not promise that) and the rerun is the way on.
    const stopped = first.events().find((e) => e.kind === "rollout-interrupted");
    expect(stopped?.why).toBe("record-lost");
    const second = track(startRun(cluster.config, "v3.7.1", env));
    expect(await second.done).toBe(0);
    // Planned from the cluster's versions: the upgraded workers are not steps of the new job.
    const planned = second.events().find((e) => e.kind === "rollout-planned") as
      | { plan: { steps: unknown[]; skipped: unknown[] } }
      | undefined;
    expect(planned?.plan.skipped.length).toBeGreaterThanOrEqual(2);
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 60_000);

  it("eviction of the lease (volatile-lru under memory pressure): warned at the start; the run stops; the rerun resumes", async () => {
    const { redis, cluster, env } = await setup("evict", 3_000, ["--maxmemory-policy", "volatile-lru"]);
    const first = track(startRun(cluster.config, "v3.7.1", env));
    await waitFor("the first restart", () => cluster.restartCount() >= 1, { timeoutMs: 20_000 });
    const admin = redis.admin();
    const used = Number(/used_memory:(\d+)/.exec(await admin.info("memory"))?.[1] ?? "0");
    await admin.config("SET", "maxmemory", String(used + 512 * 1024));
    const filler = "x".repeat(16 * 1024);
    for (let i = 0; (await admin.exists("fault:lock:{sim}")) === 1 && i < 400; i++)
      await admin.set(`filler:${i}`, filler).catch(() => undefined);
    expect(await admin.exists("fault:lock:{sim}")).toBe(0);
    expect(await first.done).toBe(1);
    expect(summaryOf(first)).toMatchObject({ result: "interrupted" });
    expect(first.err()).toContain("maxmemory-policy is volatile-lru");
    // The operator frees memory; the checkpoint (no TTL) survived the eviction.
    await admin.config("SET", "maxmemory", "0");
    const fillers = await admin.keys("filler:*");
    if (fillers.length > 0) await admin.del(...fillers);
    await admin.quit();
    const second = track(startRun(cluster.config, "v3.7.1", env));
    expect(await second.done).toBe(0);
    expect(second.events().some((e) => e.kind === "rollout-taken-over")).toBe(true);
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 60_000);

  it("Ctrl-C hands the lock over on the way out: an immediate rerun resumes (no wait for a 20 s lease)", async () => {
    const { cluster, env } = await setup("interrupt", 20_000);
    const first = track(startRun(cluster.config, "v3.7.1", env));
    await waitFor("the first restart", () => cluster.restartCount() >= 1, { timeoutMs: 20_000 });
    first.interrupt();
    expect(await first.done).toBe(1);
    expect(summaryOf(first)).toMatchObject({ result: "interrupted" });
    expect(first.events().find((e) => e.kind === "rollout-interrupted")).toMatchObject({ why: "shutdown" });
    const second = track(startRun(cluster.config, "v3.7.1", env));
    expect(await second.done).toBe(0);
    expect(second.events().some((e) => e.kind === "rollout-taken-over")).toBe(true);
    expect(cluster.restarts()).toEqual([1, 1, 1, 1]);
  }, 60_000);
});
