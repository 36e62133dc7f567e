import { describe, expect, it } from "vitest";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import { useSimOverHttp } from "../../support/sim-over-http.js";

const setUp = useSimOverHttp();

const policy = {
  connectProtocol: null,
  scheduledRebalanceMaxDelayMs: 60_000,
  expectedRestartMs: 10_000,
} as const;

describe("planner against the simulator over HTTP", () => {
  it("3.6 → 3.7: no eager window, the leader last", async () => {
    const { sim: s, read } = await setUp({ workers: 5, version: "3.6.1" });
    const plan = planRollout(await read(), { kind: "upgrade", version: "3.7.1", argument: "3.7" }, policy);
    expect(plan.eagerWindows).toEqual([]);
    expect(plan.steps).toHaveLength(5);
    expect(plan.steps.at(-1)?.worker).toBe(s.cluster.state().leader);
    expect(plan.steps.at(-1)?.isLeader).toBe(true);
    expect(plan.steps.slice(0, -1).every((step) => !step.isLeader && step.predictedMoves === 0)).toBe(true);
  });

  it("2.2 → 3.7: one eager window from step 1 to the last step", async () => {
    const { read } = await setUp({ workers: 4, version: "2.2.2" });
    const plan = planRollout(await read(), { kind: "upgrade", version: "3.7.1", argument: "3.7" }, policy);
    expect(plan.eagerWindows).toEqual([{ fromStep: 1, toStep: 4 }]);
    expect(plan.needsApproval).toBe(true);
  });
});
