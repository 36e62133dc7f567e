import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RolloutEvent } from "../../src/core/rollout/rollout-io.js";
import { createRedisJobStore } from "../../src/jobs/redis/redis-job-store.js";
import { createRedisKeys } from "../../src/jobs/redis/redis-keys.js";
import type { JobStore } from "../../src/jobs/store/job-store.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { type InProcessRolloutOptions, runInProcessRollout } from "../support/in-process-rollout.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const target = { kind: "upgrade", version: "3.7.1", argument: "v3.7.1" } as const;
let redis: Redis;
let sim: RunningSim | null = null;
const prefixes: string[] = [];

function newStore() {
  const prefix = `test:${randomUUID().slice(0, 8)}:`;
  prefixes.push(prefix);
  return { prefix, store: createRedisJobStore({ redis, prefix }) };
}

beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
});
afterEach(async () => {
  await sim?.close();
  sim = null;
});
afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

/** The sum of the simulator's restarts. */
const totalRestarts = (running: RunningSim) =>
  Object.values(running.cluster.state().counters.restarts).reduce((a, b) => a + b, 0);

/** A 3.6 → 3.7 rollout of the simulator on `store`, in the simulator's time (60 s delay, 10 s restarts). */
const rollOn = (
  running: RunningSim,
  store: JobStore,
  more: Omit<InProcessRolloutOptions, "sim" | "store" | "target" | "delayMs" | "expectedRestartMs"> = {},
) =>
  runInProcessRollout({ sim: running, store, target, delayMs: 60_000, expectedRestartMs: 10_000, ...more });

async function sixWorkers(): Promise<RunningSim> {
  sim = await startSim({
    virtualTime: true,
    workers: 6,
    connectors: 6,
    tasksPerConnector: 4,
    version: "3.6.1",
    delayMs: 60_000,
    restartMs: 10_000,
    seed: 11,
  });
  return sim;
}

describe("rollout engine with the Redis job store", () => {
  it("completes a 6-worker 3.6 → 3.7 rollout and records the audit trail and history", async () => {
    const running = await sixWorkers();
    const { store } = newStore();
    const result = await rollOn(running, store);
    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.steps.map((s) => s.status)).toEqual(Array(6).fill("settled"));
    expect(result.summary.steps.every((s) => s.restartMs !== null && s.settleMs !== null)).toBe(true);
    const jobId = result.summary.jobId;
    const audit = await store.readAudit(jobId);
    expect(audit.filter((a) => a.action === "restart-issued")).toHaveLength(6);
    // The reason in the words the views give it (the runner takes them from the composition root).
    expect(audit.at(-1)).toMatchObject({
      action: "succeeded",
      detail: "every worker was restarted and the cluster settled after each step",
    });
    const history = await store.history("sim", 5);
    expect(history[0]?.result).toBe("succeeded");
    expect(await store.readLock("sim")).toBeNull();
  });

  it("stops issuing restarts when the lock is deleted under a running job", async () => {
    const running = await sixWorkers();
    const { prefix, store } = newStore();
    const keys = createRedisKeys(prefix);
    let deletedAt: number | null = null;
    const restartsAfterDeletion: RolloutEvent[] = [];
    const result = await rollOn(running, store, {
      onEvent: (e) => {
        if (deletedAt !== null && e.kind === "step-started") restartsAfterDeletion.push(e);
        if (e.kind === "worker-back" && e.step === 1 && deletedAt === null) {
          deletedAt = running.clock.now();
          void redis.del(keys.lock("sim"), keys.lockHolder("sim"));
        }
      },
    });
    expect(result.outcome.kind).toBe("lock-lost");
    expect(restartsAfterDeletion).toEqual([]);
    expect(totalRestarts(running)).toBe(1);
  });

  it("pauses and asks when tasks.max changes mid-rollout (config freeze)", async () => {
    const running = await sixWorkers();
    const { store } = newStore();
    const asked: string[] = [];
    const result = await rollOn(running, store, {
      decide: (kind) => {
        asked.push(kind);
        return kind === "config-changed" ? "abort" : "approve";
      },
      onEvent: (e) => {
        if (e.kind === "step-settled" && e.step === 1)
          running.cluster.updateConnector("conn-01", { tasksMax: 6 });
      },
    });
    expect(asked).toEqual(["config-changed"]);
    expect(result.summary.result).toBe("aborted");
    expect(totalRestarts(running)).toBe(1);
  });
});

describe("two runners for one cluster", () => {
  it("lets exactly one run; the other is told who holds the lock and since when", async () => {
    const { store } = newStore();
    const first = await store.acquireLock("prod", { jobId: "job-a", owner: "replica-a", ttlMs: 5_000 });
    const second = await store.acquireLock("prod", { jobId: "job-b", owner: "replica-b", ttlMs: 5_000 });
    expect(first.kind).toBe("acquired");
    expect(second.kind).toBe("held");
    if (second.kind === "held") {
      expect(second.holder.jobId).toBe("job-a");
      expect(second.holder.owner).toBe("replica-a");
      expect(second.holder.since).toBeGreaterThan(0);
    }
  });
});
