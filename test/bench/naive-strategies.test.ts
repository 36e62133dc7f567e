import { describe, expect, it } from "vitest";
import { allAtOnce } from "../../bench/strategies/all-at-once.js";
import { deployment, maxUnavailable, replacementOrder } from "../../bench/strategies/deployment.js";
import { statefulSetTasksReady } from "../../bench/strategies/statefulset-tasks-ready.js";
import { strimzi } from "../../bench/strategies/strimzi.js";
import { smallScenario } from "./small-scenario.js";

const small = smallScenario({ delayMs: 60_000, restartMs: 10_000 });

describe("naive strategies on a 3-worker simulator", () => {
  it("all at once: everything down at once, back after about one restart", async () => {
    const r = await allAtOnce.run(small, 1);
    const f = r.figures;
    if (!f) throw new Error(r.note ?? "no figures");
    expect(f.settled).toBe(true);
    expect(f.peakShare).toBe(1);
    expect(f.wallMs).toBeGreaterThanOrEqual(10_000);
    expect(f.wallMs).toBeLessThan(30_000);
    expect(f.downtime.maxMs).toBeGreaterThanOrEqual(10_000);
    expect(f.eagerRebalances).toBe(0);
    expect(r.leaderPosition).toBeNull();
  });

  it("strimzi: one pod at a time in name order, the next once /health answers, held tasks pile up", async () => {
    const r = await strimzi.run(small, 1);
    const f = r.figures;
    if (!f) throw new Error(r.note ?? "no figures");
    expect(f.settled).toBe(true);
    // Each step waits for one restart only, not for the delay: the roll is done well inside one delay…
    expect(f.toolDoneMs).toBeGreaterThanOrEqual(3 * 10_000);
    expect(f.toolDoneMs).toBeLessThan(3 * 10_000 + 60_000);
    // …so the bounced followers' tasks are all held by the delay at once: more than one worker's share.
    expect(f.peakShare).toBeGreaterThan(1 / 3);
    expect(f.downtime.maxMs).toBeGreaterThan(10_000);
    expect(r.leader).not.toBeNull();
    expect(r.leaderPosition).toBeGreaterThanOrEqual(1);
    expect(r.leaderPosition).toBeLessThanOrEqual(3);
  });

  it("statefulset-tasks-ready: highest ordinal first, the next only when every task is RUNNING again", async () => {
    const r = await statefulSetTasksReady.run(small, 1);
    const f = r.figures;
    if (!f) throw new Error(r.note ?? "no figures");
    expect(f.settled).toBe(true);
    // One worker's tasks down at a time: the gate waits out each follower's delay before the next pod goes.
    expect(f.peakShare).toBeLessThanOrEqual(1 / 3 + 1e-9);
    expect(f.toolDoneMs).toBeGreaterThan(60_000);
    const s = await strimzi.run(small, 1);
    expect(f.wallMs).toBeGreaterThan(s.figures?.wallMs ?? Number.POSITIVE_INFINITY);
  });

  it("deployment: at most a quarter of the workers in flight, replaced workers count as new", async () => {
    expect(maxUnavailable(3)).toBe(1);
    expect(maxUnavailable(12)).toBe(3);
    expect(maxUnavailable(50)).toBe(12);
    expect([...replacementOrder(["a", "b", "c"], 4)].sort()).toEqual(["a", "b", "c"]);
    const r = await deployment.run(small, 1);
    const f = r.figures;
    if (!f) throw new Error(r.note ?? "no figures");
    expect(f.settled).toBe(true);
    expect(f.downtime.sumMs).toBeGreaterThan(0);
    // Every task ends on a new worker: at least one move per task.
    expect(f.moves).toBeGreaterThanOrEqual(6);
  });
});
