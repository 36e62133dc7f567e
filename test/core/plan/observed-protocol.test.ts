import { describe, expect, it } from "vitest";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import type { PlanPolicy } from "../../../src/core/plan/plan-types.js";
import { aCluster } from "../../support/cluster-snapshot-builder.js";

const policy: PlanPolicy = {
  connectProtocol: null,
  scheduledRebalanceMaxDelayMs: 20_000,
  expectedRestartMs: 10_000,
};

/**
 * Seen on a real 3.9 cluster: one worker started with connect.protocol=eager makes the whole group eager, and its
 * metric says EAGER on every worker, while every version supports cooperative rebalancing.
 */
const cluster = (observed: "eager" | "sessioned") =>
  aCluster("lab")
    .withWorkers(3, (w) => w.version("3.9.1").protocol(observed))
    .leader("worker-1")
    .withConnector("c", (c) => c.tasks(3, "RUNNING", ["worker-1", "worker-2", "worker-3"]))
    .build();

describe("planRollout: the protocol the group negotiates now", () => {
  it("an EAGER metric that the versions do not explain: every step is an eager window, with a finding", () => {
    const plan = planRollout(
      cluster("eager"),
      { kind: "upgrade", version: "4.1.1", argument: "4.1.1" },
      policy,
    );
    expect(plan.eagerWindows).toEqual([{ fromStep: 1, toStep: 3 }]);
    expect(plan.steps.every((s) => s.protocolBefore === "eager")).toBe(true);
    const finding = plan.findings.find((f) => f.code === "protocol-observed-lower");
    expect(finding?.message).toContain("connect.protocol=eager");
    expect(plan.findings.map((f) => f.code)).toContain("eager-window");
  });

  it("a metric that agrees with the versions changes nothing", () => {
    const plan = planRollout(
      cluster("sessioned"),
      { kind: "upgrade", version: "4.1.1", argument: "4.1.1" },
      policy,
    );
    expect(plan.eagerWindows).toEqual([]);
    expect(plan.findings.map((f) => f.code)).not.toContain("protocol-observed-lower");
  });

  it("a declared per-worker eager setting explains the metric: the window ends with that worker's upgrade", () => {
    const plan = planRollout(
      cluster("eager"),
      { kind: "upgrade", version: "4.1.1", argument: "4.1.1" },
      {
        ...policy,
        connectProtocolByWorker: { "worker-2": "eager" },
      },
    );
    expect(plan.findings.map((f) => f.code)).not.toContain("protocol-observed-lower");
    expect(plan.eagerWindows.length).toBeGreaterThan(0);
  });
});

describe("planRollout: wall time from the gate's real cost", () => {
  it("a gate of 0.5 s quiet + 3 × 1 s polls costs 3.5 s per step, not the 30 s allowance", () => {
    const snapshot = cluster("sessioned");
    const target = { kind: "restart", version: "3.9.1", argument: "restart" } as const;
    const defaults = planRollout(snapshot, target, policy);
    const short = planRollout(snapshot, target, { ...policy, settleAllowanceMs: 3_500 });
    const perStep = (p: typeof defaults) => p.steps.map((s) => s.predictedWallMs);
    expect(perStep(defaults).map((w, i) => w - (perStep(short)[i] ?? 0))).toEqual([26_500, 26_500, 26_500]);
    expect(defaults.totals.predictedWallMs.safe - short.totals.predictedWallMs.safe).toBe(3 * 26_500);
  });
});
