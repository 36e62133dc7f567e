import { describe, expect, it } from "vitest";
import { runBenchRollout } from "../../bench/in-process-rollout.js";
import type { Scenario } from "../../bench/scenarios.js";
import { runConnectRoll } from "../../bench/strategies/connect-roll.js";
import { startSim } from "../../src/sim/start-sim.js";

/**
 * Pace `window` end to end: the real runner, HTTP reader with its single-worker probe and sim executor on a
 * simulator in virtual time. 6 workers, delay 60 s, restart 10 s ± 10 %: k* = 1 + ⌊(60 − 10 − 6)/11⌋ = 5 followers,
 * so one window of the 5 followers that the leader closes.
 */
const small: Scenario = {
  id: "a",
  title: "6 workers × 6 connectors × 2 tasks, delay 60 s, restart 10 s ± 10 %",
  sim: {
    workers: 6,
    connectors: 6,
    tasksPerConnector: 2,
    version: "3.6.2",
    delayMs: 60_000,
    restartMs: 10_000,
    restartJitter: 0.1,
  },
  targetVersion: "3.7.1",
  seeds: [1],
  quickSeeds: [1],
  spreadLeader: false,
};

describe("pace window through the runner and the reader's probe", () => {
  it("restarts the followers back to back, the leader last and closing the window, watching with probes", async () => {
    const sim = await startSim({ ...small.sim, seed: 1, virtualTime: true, host: "127.0.0.1" });
    try {
      await sim.settle();
      const leader = sim.cluster.state().leader;
      const out = await runBenchRollout({
        sim,
        target: { kind: "upgrade", version: "3.7.1", argument: "3.7.1" },
        pace: "window",
        delayMs: 60_000,
        expectedRestartMs: 10_000,
        pollIntervalMs: 5_000,
      });
      expect(out.summary.result).toBe("succeeded");
      expect(out.summary.steps.at(-1)?.worker).toBe(leader);
      // the five followers continue the window at once (no gate of their own); the leader's gate ends it
      expect(out.summary.steps.map((s) => s.settleMs === 0)).toEqual([true, true, true, true, true, false]);
      // a probe about every second while a worker restarts; whole-cluster reads only around the steps and the gate
      expect(out.probes).toBeGreaterThan(5 * 6);
      expect(out.polls).toBeLessThan(out.probes);
    } finally {
      await sim.close();
    }
  });

  it("zero moves and interruptions before the leader's stop, every worker on the target, well under the safe pace", async () => {
    const window = await runConnectRoll(small, 1, "window");
    const safe = await runConnectRoll(small, 1, "safe");
    expect(window.note).toBeNull();
    expect(window.followerSteps?.interruptions).toBe(0);
    expect(window.leaderPosition).toBe(6);
    expect(window.figures?.settled).toBe(true);
    // one delay for the whole rollout instead of one per follower
    expect(window.figures?.wallMs ?? Number.POSITIVE_INFINITY).toBeLessThan((safe.figures?.wallMs ?? 0) / 3);
  });
});
