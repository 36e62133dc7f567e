import { afterEach, describe, expect, it } from "vitest";
import { AppError, ErrorCode } from "../../src/core/errors.js";
import type { RolloutEvent } from "../../src/core/rollout/rollout-io.js";
import { createMemoryJobStore } from "../../src/jobs/memory/memory-job-store.js";
import type { JobStore } from "../../src/jobs/store/job-store.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { runInProcessRollout } from "../support/in-process-rollout.js";

let sim: RunningSim | null = null;
afterEach(async () => {
  await sim?.close();
  sim = null;
});

/**
 * A store that forgets everything at a moment of the test's choosing, as Redis does when it restarts without
 * persistence: for a moment every call is refused (the restart itself: connection refused, retried), then the lock
 * and the job's record are gone: renewals are refused, a fenced write meets no lock, the record is not found.
 */
function forgetfulStore(): { store: JobStore; forget(): void } {
  const inner = createMemoryJobStore();
  let forgottenAt: number | null = null;
  const phase = (): "normal" | "restarting" | "empty" =>
    forgottenAt === null ? "normal" : Date.now() - forgottenAt < 500 ? "restarting" : "empty";
  const unavailable = (op: string) =>
    new AppError(ErrorCode.StoreUnavailable, `${op}: connection refused`, { retryable: true });
  const store: JobStore = {
    ...inner,
    saveJob: async (lease, record) => {
      const p = phase();
      if (p === "restarting") throw unavailable("saveJob");
      if (p === "empty")
        throw new AppError(ErrorCode.LockLost, `lock lost on ${record.cluster}: fenced write refused`);
      return inner.saveJob(lease, record);
    },
    renewLock: async (lease, ttlMs) => {
      const p = phase();
      if (p === "restarting") throw unavailable("renewLock");
      return p === "empty" ? false : inner.renewLock(lease, ttlMs);
    },
    loadJob: async (id) => {
      const p = phase();
      if (p === "restarting") throw unavailable("loadJob");
      if (p === "empty") throw new AppError(ErrorCode.JobNotFound, `job ${id} not found`);
      return inner.loadJob(id);
    },
  };
  return {
    store,
    forget: () => {
      forgottenAt = Date.now();
    },
  };
}

describe("a rollout whose store forgot it (Redis restarted without persistence)", () => {
  it("stops as record-lost, not lease-lost, when the lease is lost first: nobody can resume it, a rerun must", async () => {
    const running = await startSim({
      virtualTime: true,
      workers: 3,
      version: "3.6.1",
      delayMs: 10_000,
      restartMs: 5_000,
      seed: 3,
    });
    sim = running;
    const { store, forget } = forgetfulStore();
    const events: RolloutEvent[] = [];
    const result = await runInProcessRollout({
      sim: running,
      target: { kind: "restart", version: "restart", argument: "restart" },
      delayMs: 10_000,
      expectedRestartMs: 5_000,
      store,
      lockTtlMs: 1_500,
      onEvent: (e) => {
        events.push(e);
        if (e.kind === "worker-back") forget();
      },
    });
    expect(result.outcome.kind).toBe("lock-lost");
    const stopped = events.find((e) => e.kind === "rollout-interrupted");
    expect(stopped).toMatchObject({ why: "record-lost" });
    // Marked, so a replica that remembers the record leaves it lost: this thread proposes the rerun.
    expect(await store.recordLostMarked("sim", result.outcome.state.jobId)).toBe(true);
    expect(Object.values(running.cluster.state().counters.restarts).reduce((a, b) => a + b, 0)).toBe(1);
  });
});
