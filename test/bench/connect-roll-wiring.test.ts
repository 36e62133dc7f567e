import { describe, expect, it } from "vitest";
import { advanceUntil, workerReady } from "../../bench/sim-driver.js";
import { type BenchRunner, runConnectRollWith } from "../../bench/strategies/connect-roll.js";
import { smallScenario } from "./small-scenario.js";

const small = smallScenario({ delayMs: 20_000, restartMs: 5_000 });

/** A stand-in for runBenchRollout: followers one at a time, each after the delay, leader last. */
const standIn: BenchRunner = async (options) => {
  const cluster = options.sim.cluster;
  const leader = cluster.state().leader;
  const order = [...cluster.workerNames().filter((w) => w !== leader), ...(leader ? [leader] : [])];
  for (const w of order) {
    cluster.restartWorker(w, { version: "3.7.1", downMs: 0 });
    advanceUntil(cluster, () => workerReady(cluster, w), 600_000);
    cluster.advance(w === leader ? 5_000 : 25_000);
  }
  return { summary: { result: "succeeded", steps: order }, httpCalls: 30, polls: 6, probes: 0, cpuMs: 3 };
};

describe("connect-roll rows", () => {
  it("read the ledger and the runner's own cost", async () => {
    const r = await runConnectRollWith(standIn, small, 1, "safe");
    const f = r.figures;
    if (!f) throw new Error(r.note ?? "no figures");
    expect(r.strategy).toBe("connect-roll");
    expect(r.note).toBeNull();
    expect(f.settled).toBe(true);
    expect(r.leaderPosition).toBe(3);
    expect(r.followerSteps).toEqual({ moves: 0, interruptions: 0 });
    expect(r.bot).toMatchObject({ steps: 3, polls: 6, httpCalls: 30, cpuMs: 3 });
  });
});
