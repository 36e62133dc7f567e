import { describe, expect, it } from "vitest";
import { runInProcessRollout } from "../../bench/in-process-rollout.js";
import { runConnectRoll } from "../../bench/strategies/connect-roll.js";
import { startSim } from "../../src/sim/start-sim.js";
import { smallScenario } from "./small-scenario.js";

/**
 * Pace `rotate` end to end: the real runner, HTTP reader and sim executor on a simulator in virtual time. Each step
 * restarts the worker that leads at that moment while it is one not restarted yet, so the tasks of each such step are
 * handed out at once by the new leader instead of being held for the delay.
 */
const small = smallScenario({ delayMs: 60_000, restartMs: 10_000 });
const six = {
  workers: 6,
  connectors: 6,
  tasksPerConnector: 4,
  version: "3.8.1",
  delayMs: 30_000,
  restartMs: 5_000,
};

describe("pace rotate through the runner", () => {
  it("restarts the leader first, each later leader when it finds one, every worker once and on the target", async () => {
    // 6 workers; on seed 4 the leadership passes to a worker not restarted yet three times.
    const sim = await startSim({ ...six, seed: 4, virtualTime: true, host: "127.0.0.1" });
    try {
      await sim.settle();
      const leader = sim.cluster.state().leader;
      // Who led when each step started (the simulator's ground truth), and the runner's reorderings.
      const leaders: (string | null)[] = [];
      const reordered: string[] = [];
      const out = await runInProcessRollout({
        sim,
        target: { kind: "upgrade", version: "3.9.1", argument: "3.9.1" },
        pace: "rotate",
        delayMs: 30_000,
        expectedRestartMs: 5_000,
        pollIntervalMs: 1_000,
        probe: true,
        onEvent: (event) => {
          if (event.kind === "step-started") leaders.push(sim.cluster.state().leader);
          if (event.kind === "step-reordered" && event.reason.kind === "leader-first")
            reordered.push(event.worker);
        },
      });
      expect(out.summary.result).toBe("succeeded");
      const order = out.summary.steps.map((s) => s.worker);
      expect(order[0]).toBe(leader);
      expect([...order].sort()).toEqual([
        "worker-1",
        "worker-2",
        "worker-3",
        "worker-4",
        "worker-5",
        "worker-6",
      ]);
      expect(reordered.length).toBeGreaterThan(0);
      // Every step that started while a worker not restarted yet led restarted that leader.
      expect(leaders).toHaveLength(6);
      order.forEach((worker, i) => {
        const leading = leaders[i] ?? null;
        if (leading !== null && order.indexOf(leading) >= i) expect(worker).toBe(leading);
      });
      for (const w of reordered) expect(order.indexOf(w)).toBeGreaterThan(0);
      const state = sim.cluster.state();
      expect(Object.values(state.counters.restarts)).toEqual([1, 1, 1, 1, 1, 1]);
      expect(state.workers.every((w) => w.version === "3.9.1")).toBe(true);
    } finally {
      await sim.close();
    }
  });

  it("holds no follower's tasks while a not yet restarted worker leads: less downtime than leader-last", async () => {
    const rotate = await runConnectRoll(small, 1, "rotate");
    const safe = await runConnectRoll(small, 1, "safe");
    expect(rotate.note).toBeNull();
    expect(rotate.figures?.settled).toBe(true);
    expect(rotate.leaderPosition).toBe(1);
    expect(rotate.figures?.downtime.sumMs ?? Number.POSITIVE_INFINITY).toBeLessThan(
      safe.figures?.downtime.sumMs ?? 0,
    );
  });
});
