import { describe, expect, it } from "vitest";
import { rotationLeaderChances } from "../../../src/core/plan/forecast-paces.js";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import type { PlanPolicy, RolloutTarget } from "../../../src/core/plan/plan-types.js";
import { renderPlanText } from "../../../src/core/plan/render-plan-text.js";
import { aCluster } from "../../support/cluster-snapshot-builder.js";

const restart: RolloutTarget = { kind: "restart", version: "3.9.1", argument: "restart" };
const WORKERS = ["worker-1", "worker-2", "worker-3", "worker-4", "worker-5", "worker-6"];
const policy = (delayMs: number): PlanPolicy => ({
  connectProtocol: null,
  scheduledRebalanceMaxDelayMs: delayMs,
  expectedRestartMs: 5_000,
});
/** Six workers × 4 tasks, worker-1 leads. */
const six = (leader: string | null = "worker-1") => {
  const b = aCluster("lab")
    .withWorkers(6, (w) => w.version("3.9.1"))
    .withConnector("conn", (c) => c.tasks(24, "RUNNING", WORKERS));
  return (leader === null ? b : b.leader(leader)).build();
};

describe("pace forecasts", () => {
  it("a rotation restarts the leader of the moment with the chance that every leader so far passed the lead on", () => {
    const chances = rotationLeaderChances(6, 6);
    expect(chances.map((c) => Number(c.toFixed(4)))).toEqual([1, 1, 0.8, 0.48, 0.192, 0.0384]);
    expect(chances.reduce((a, b) => a + b, 0)).toBeCloseTo(3.51, 2);
    // Workers already on the target are members too: they can take the lead.
    expect(rotationLeaderChances(2, 4)).toEqual([1, 1 / 3]);
    expect(rotationLeaderChances(1, 1)).toEqual([1]);
  });

  it("forecasts every pace in its own order and recommends the least task downtime", () => {
    for (const delayMs of [30_000, 300_000]) {
      const plan = planRollout(six(), restart, policy(delayMs));
      const paces = plan.totals.paces ?? [];
      expect(paces.map((f) => f.pace)).toEqual(["safe", "window", "rotate"]);
      const [safe, , rotate] = paces;
      expect(safe?.peakShare).toBeCloseTo(4 / 24);
      expect(rotate?.peakShare).toBeCloseTo(8 / 24);
      expect(rotate?.expectedLeaderSteps).toBeCloseTo(3.51, 2);
      // About 3.5 of the 6 steps cost seconds instead of the delay.
      expect(rotate?.taskDowntimeMs ?? 0).toBeLessThan(0.7 * (safe?.taskDowntimeMs ?? 0));
      const best = [...paces].sort((a, b) => a.taskDowntimeMs - b.taskDowntimeMs)[0];
      expect(plan.totals.recommendedPace).toBe(best?.pace);
      // The plan's own pace is unchanged by the forecasts.
      expect(plan.pace).toBe("safe");
      expect(plan.steps.at(-1)?.worker).toBe("worker-1");
    }
  });

  it("shows the paces in the plan's text, and no rotation when the leader is unknown", () => {
    const text = renderPlanText(planRollout(six(), restart, policy(30_000)));
    expect(text).toMatch(/Paces \(expected\):\n {2}safe: task downtime .*, wall .*, peak 17 %/);
    expect(text).toMatch(/ {2}rotate: .*peak 33 %, about 3\.5 steps restart the leader of the moment/);
    expect(text).toContain("← least task downtime");
    const unknown = planRollout(six(null), restart, policy(30_000));
    expect((unknown.totals.paces ?? []).map((f) => f.pace)).toEqual(["safe", "window"]);
  });
});
