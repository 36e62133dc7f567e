import { describe, expect, it } from "vitest";
import { allAtOnce } from "../../bench/strategies/all-at-once.js";
import { deployment, maxUnavailable, replacementOrder } from "../../bench/strategies/deployment.js";
import { statefulSet } from "../../bench/strategies/statefulset.js";
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

  it("statefulset: one worker at a time, highest ordinal first, held tasks wait for the delay", async () => {
    const r = await statefulSet.run(small, 1);
    const f = r.figures;
    if (!f) throw new Error(r.note ?? "no figures");
    expect(f.settled).toBe(true);
    expect(f.wallMs).toBeGreaterThanOrEqual(3 * 10_000);
    expect(f.peakShare).toBeGreaterThanOrEqual(1 / 3);
    // Follower tasks held by the scheduled delay are down far longer than a restart.
    expect(f.downtime.maxMs).toBeGreaterThan(10_000);
    expect(f.rebalances).toBeGreaterThanOrEqual(6);
    expect(r.leader).not.toBeNull();
    expect(r.leaderPosition).toBeGreaterThanOrEqual(1);
    expect(r.leaderPosition).toBeLessThanOrEqual(3);
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
