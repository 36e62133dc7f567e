import { afterEach, describe, expect, it } from "vitest";
import type { RolloutEvent } from "../../src/core/rollout/rollout-io.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { runInProcessRollout } from "../support/in-process-rollout.js";

let sim: RunningSim | null = null;
afterEach(async () => {
  await sim?.close();
  sim = null;
});

describe("rollout engine against the simulator (virtual time, HTTP)", () => {
  it("upgrades 6 workers 3.6.1 → 3.7.1, followers first and the leader last, no moves or interruptions on follower steps", async () => {
    const running = await startSim({
      virtualTime: true,
      workers: 6,
      connectors: 6,
      tasksPerConnector: 4,
      version: "3.6.1",
      delayMs: 60_000,
      restartMs: 10_000,
      seed: 7,
    });
    sim = running;
    const leader = running.cluster.state().leader;
    const events: RolloutEvent[] = [];
    let beforeLeaderStep: { moves: number; interruptions: number } | null = null;
    const result = await runInProcessRollout({
      sim: running,
      target: { kind: "upgrade", version: "3.7.1", argument: "v3.7.1" },
      delayMs: 60_000,
      expectedRestartMs: 10_000,
      onEvent: (e) => {
        events.push(e);
        if (e.kind === "step-started" && e.worker === leader) {
          const c = running.cluster.state().counters;
          beforeLeaderStep = { moves: c.taskMoves, interruptions: c.taskInterruptions };
        }
      },
    });
    expect(result.summary.result).toBe("succeeded");
    const state = running.cluster.state();
    expect(state.workers.every((w) => w.version === "3.7.1")).toBe(true);
    expect(Object.values(state.counters.restarts)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(result.summary.steps.at(-1)?.worker).toBe(leader);
    expect(result.summary.steps.at(-1)?.isLeader).toBe(true);
    expect(beforeLeaderStep).toEqual({ moves: 0, interruptions: 0 });
    expect(result.summary.steps.slice(0, 5).every((s) => s.tasksMoved === 0)).toBe(true);
    expect(events.filter((e) => e.kind === "step-settled")).toHaveLength(6);
    const held = events.find(
      (e) => e.kind === "gate-waiting" && e.reasons.some((r) => r.code === "held-by-scheduled-delay"),
    );
    expect(held).toBeDefined();
  });
});

describe("2.2 → 3.7 (eager window)", () => {
  it("reads a pre-2.3 cluster without expand, asks before the eager window and finishes on 3.7.1", async () => {
    const running = await startSim({
      virtualTime: true,
      workers: 4,
      connectors: 4,
      tasksPerConnector: 2,
      version: "2.2.2",
      delayMs: 30_000,
      restartMs: 5_000,
      seed: 3,
    });
    sim = running;
    const asked: string[] = [];
    const result = await runInProcessRollout({
      sim: running,
      target: { kind: "upgrade", version: "3.7.1", argument: "v3.7.1" },
      delayMs: 30_000,
      expectedRestartMs: 5_000,
      decide: (kind) => {
        asked.push(kind);
        return "approve";
      },
    });
    expect(asked).toEqual(["eager-window"]);
    expect(result.summary.result).toBe("succeeded");
    const state = running.cluster.state();
    expect(state.protocol).toBe("sessioned");
    expect(state.counters.eagerRebalances).toBeGreaterThan(0);
    expect(Object.values(state.counters.restarts)).toEqual([1, 1, 1, 1]);
  });
});
