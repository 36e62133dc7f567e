import { existsSync } from "node:fs";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../support/wait-for.js";
import { type FaultCluster, startFaultCluster, startRun, summaryOf } from "./fault-harness.js";
import { startRedisCluster } from "./redis-cluster-fixture.js";
import { SENTINEL_BIN, startSentinelGroup } from "./redis-sentinel-fixture.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function cluster(name: string): Promise<FaultCluster> {
  const c = await startFaultCluster(name);
  cleanups.push(() => c.sim.close());
  return c;
}

describe.skipIf(!existsSync("/usr/bin/redis-cli"))("Redis Cluster (3 masters on loopback)", () => {
  it("runs a whole rollout through redis+cluster:// (every multi-key script in its cluster's slot)", async () => {
    const redisCluster = await startRedisCluster();
    cleanups.push(() => redisCluster.stop());
    const nodes = redisCluster.nodes;
    const roll = await cluster("redis-cluster");
    const url = `redis+cluster://${nodes
      .slice(0, 2)
      .map((n) => `127.0.0.1:${n.port}`)
      .join(",")}`;
    const r = startRun(roll.config, "v3.7.1", {
      REDIS_URL: url,
      CONNECT_ROLL_REDIS_PREFIX: "ha:",
      CONNECT_ROLL_LOCK_TTL_MS: "3000",
    });
    // One runner at a time on a Redis Cluster too: a second run of the same cluster is refused while the first runs.
    await waitFor("the first restart", () => roll.restartCount() >= 1, { timeoutMs: 20_000 });
    const other = startRun(roll.config, "v3.7.1", {
      REDIS_URL: url,
      CONNECT_ROLL_REDIS_PREFIX: "ha:",
      CONNECT_ROLL_LOCK_TTL_MS: "3000",
    });
    expect(await other.done).toBe(1);
    expect(other.err()).toContain("is locked by job");
    expect(await r.done, r.err()).toBe(0);
    expect(summaryOf(r)).toMatchObject({ result: "succeeded" });
    expect(roll.restarts()).toEqual([1, 1, 1, 1]);
    // The job's keys share the lock's slot; the global indexes have their own.
    const admin = nodes[0]?.admin() ?? new Redis();
    const slot = async (key: string) => Number(await admin.call("CLUSTER", "KEYSLOT", key));
    expect(await slot("ha:job:{sim}:x")).toBe(await slot("ha:lock:{sim}"));
    expect(await slot("ha:jobs:{sim}:unfinished")).toBe(await slot("ha:lock:{sim}"));
    await admin.quit();
  }, 60_000);
});

describe.skipIf(SENTINEL_BIN === null)("Redis Sentinel", () => {
  it("a failover mid-rollout: the run follows the new master (or stops and its rerun finishes); no worker restarts twice", async () => {
    const group = await startSentinelGroup();
    cleanups.push(() => group.stop());
    const roll = await cluster("sentinel");
    const env = {
      REDIS_URL: group.url,
      CONNECT_ROLL_REDIS_PREFIX: "ha:",
      CONNECT_ROLL_LOCK_TTL_MS: "6000",
    };
    const first = startRun(roll.config, "v3.7.1", env);
    cleanups.push(async () => {
      first.interrupt();
      await first.done;
    });
    await waitFor("the first restart", () => roll.restartCount() >= 1, { timeoutMs: 20_000 });
    // The master dies; the sentinels promote the replica.
    await group.master.kill();
    await waitFor(
      "the sentinels to promote the replica",
      async () => (await group.masterPort()) === group.replica.port,
      {
        timeoutMs: 20_000,
      },
    );
    const firstExit = await first.done;
    let finished = firstExit === 0;
    if (!finished) {
      // Writes since the last replication may be gone with the old master: the run said so and how to resume.
      expect(summaryOf(first)).toMatchObject({ result: "interrupted" });
      const second = startRun(roll.config, "v3.7.1", env);
      finished = (await second.done) === 0;
      expect(summaryOf(second)).toMatchObject({ result: "succeeded" });
    } else {
      expect(first.events().some((e) => e.kind === "store-unreachable")).toBe(true);
      expect(first.events().some((e) => e.kind === "store-recovered")).toBe(true);
    }
    expect(finished).toBe(true);
    expect(roll.restarts()).toEqual([1, 1, 1, 1]);
  }, 90_000);
});
