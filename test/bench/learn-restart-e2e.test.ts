import { describe, expect, it } from "vitest";
import { runInProcessRollout } from "../../bench/in-process-rollout.js";
import type { RolloutEvent } from "../../src/core/rollout/rollout-io.js";
import { startSim } from "../../src/sim/start-sim.js";

/**
 * Learning the restart, end to end on a simulator in virtual time: 6 workers, delay 60 s, real restart 10 s, but the
 * configuration declares 40 s. Declared, a window holds k* = 1 + ⌊(60 − 40 − 9)/41⌋ = 1 follower: no window forms and
 * every follower waits out a delay of its own. Learned after the first follower, k* = 1 + ⌊(60 − 10 − 6)/11⌋ = 5.
 */
const SIM = {
  workers: 6,
  connectors: 6,
  tasksPerConnector: 2,
  version: "3.6.2",
  delayMs: 60_000,
  restartMs: 10_000,
  restartJitter: 0.1,
} as const;

async function roll(expectedRestartMs: number) {
  const sim = await startSim({ ...SIM, seed: 1, virtualTime: true, host: "127.0.0.1" });
  try {
    await sim.settle();
    const events: RolloutEvent[] = [];
    const t0 = sim.cluster.now();
    const out = await runInProcessRollout({
      sim,
      target: { kind: "upgrade", version: "3.7.1", argument: "3.7.1" },
      pace: "window",
      delayMs: SIM.delayMs,
      expectedRestartMs,
      pollIntervalMs: 5_000,
      probe: true,
      onEvent: (e) => {
        events.push(e);
      },
    });
    return { out, events, tookMs: sim.cluster.now() - t0 };
  } finally {
    await sim.close();
  }
}

describe("pace window learns the restart time", () => {
  it("re-plans the remaining windows once with the measured restart, and says so once", async () => {
    const { out, events, tookMs } = await roll(40_000);
    expect(out.summary.result).toBe("succeeded");
    const learned = events.filter((e) => e.kind === "restart-learned");
    expect(learned).toHaveLength(1);
    expect(learned[0]).toMatchObject({
      step: 1,
      declaredMs: 40_000,
      samples: 1,
      followersPerWindowBefore: 1,
    });
    const first = learned[0];
    if (first?.kind !== "restart-learned") throw new Error("no restart-learned event");
    expect(first.learnedMs).toBeGreaterThan(8_000);
    expect(first.learnedMs).toBeLessThan(16_000);
    expect(first.followersPerWindowAfter).toBeGreaterThanOrEqual(4);
    // the first follower, alone by the declared plan, opens a window after the fact (its tasks are still held):
    // the next followers join it until its deadline, the rest form the window the leader closes
    const gated = out.summary.steps.map((s) => s.settleMs !== 0);
    expect(gated[0]).toBe(false);
    expect(gated.filter(Boolean).length).toBeLessThanOrEqual(2);
    // never learning, every follower would wait a delay of its own: 5 × 60 s
    expect(tookMs).toBeLessThan(2.5 * SIM.delayMs);
  });

  it("leaves a declared time that was right alone: no re-plan, no message", async () => {
    const { out, events } = await roll(10_000);
    expect(out.summary.result).toBe("succeeded");
    expect(events.filter((e) => e.kind === "restart-learned")).toEqual([]);
  });
});
