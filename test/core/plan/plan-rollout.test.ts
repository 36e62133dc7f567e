import { describe, expect, it } from "vitest";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import type { PlanPolicy, RolloutTarget } from "../../../src/core/plan/plan-types.js";
import { aCluster } from "../../support/cluster-snapshot-builder.js";

const upgrade = (version: string): RolloutTarget => ({ kind: "upgrade", version, argument: `v${version}` });
const policy: PlanPolicy = {
  connectProtocol: null,
  scheduledRebalanceMaxDelayMs: 300_000,
  expectedRestartMs: 60_000,
};

/** Three workers on `version`, 12 tasks dealt over them, worker-2 leads. */
const threeWorkers = (version: string) =>
  aCluster("prod")
    .withWorkers(3, (w) => w.version(version))
    .leader("worker-2")
    .withConnector("orders", (c) => c.tasks(6, "RUNNING", ["worker-1", "worker-2", "worker-3"]))
    .withConnector("payments", (c) => c.sink().tasks(6, "RUNNING", ["worker-1", "worker-2", "worker-3"]))
    .at(1_000);

describe("planRollout: order", () => {
  it("restarts followers in natural order and the leader last, with reasons", () => {
    const snapshot = aCluster()
      .withWorker("worker-10", (w) => w.version("3.6.1"))
      .withWorker("worker-2", (w) => w.version("3.6.1").leader())
      .withWorker("worker-1", (w) => w.version("3.6.1"))
      .withConnector("c", (c) => c.tasks(3, "RUNNING", ["worker-1", "worker-2", "worker-10"]))
      .build();
    const plan = planRollout(snapshot, upgrade("3.7.1"), policy);
    expect(plan.steps.map((s) => s.worker)).toEqual(["worker-1", "worker-10", "worker-2"]);
    expect(plan.steps.map((s) => s.isLeader)).toEqual([false, false, true]);
    expect(plan.steps[0]?.reasons[0]).toBe(
      "follower: its tasks are held by the scheduled delay and come back to it",
    );
    expect(plan.steps[2]?.reasons[0]).toContain("group leader: bounced last");
    expect(plan.leader).toEqual({ kind: "known", worker: "worker-2", url: "http://worker-2:8083" });
  });

  it("skips workers already on the target version, with a reason", () => {
    const snapshot = threeWorkers("3.6.1")
      .withWorker("worker-3", (w) => w.version("3.7.1"))
      .build();
    const plan = planRollout(snapshot, upgrade("3.7"), policy);
    expect(plan.steps.map((s) => s.worker)).toEqual(["worker-1", "worker-2"]);
    expect(plan.skipped).toEqual([
      { worker: "worker-3", reason: "already reports 3.7.1, which matches 3.7" },
    ]);
    expect(plan.findings.map((f) => f.code)).toContain("already-on-target");
  });

  it("restarts every worker for a plain restart", () => {
    const plan = planRollout(
      threeWorkers("3.7.1").build(),
      { kind: "restart", version: "3.7.1", argument: "restart" },
      policy,
    );
    expect(plan.steps).toHaveLength(3);
    expect(plan.steps.every((s) => s.toVersion === "3.7.1")).toBe(true);
  });

  it("warns and notes when the leader is unknown", () => {
    const snapshot = threeWorkers("3.6.1")
      .withWorkers(3, (w) => w.leaderUrl(null))
      .build();
    const plan = planRollout(snapshot, upgrade("3.7.1"), policy);
    expect(plan.leader.kind).toBe("unknown");
    expect(plan.steps.some((s) => s.isLeader)).toBe(false);
    expect(plan.findings.find((f) => f.code === "leader-unknown")?.severity).toBe("warn");
    expect(plan.notes.join(" ")).toContain("could not be made leader-last");
  });

  it("says nothing to do when every worker is on the target", () => {
    const plan = planRollout(threeWorkers("3.7.1").build(), upgrade("3.7.1"), policy);
    expect(plan.steps).toEqual([]);
    expect(plan.findings.map((f) => f.code)).toContain("nothing-to-do");
  });
});

describe("planRollout: protocol per step", () => {
  it("3.6 → 3.7 (sessioned both): no eager window, sessioned throughout", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), policy);
    expect(plan.eagerWindows).toEqual([]);
    expect(plan.compatibleWindows).toEqual([]);
    expect(plan.steps.map((s) => s.protocolAfter)).toEqual(["sessioned", "sessioned", "sessioned"]);
    expect(plan.needsApproval).toBe(false);
  });

  it("2.2 → 3.7: one eager window from step 1 to the last step, needing approval", () => {
    const plan = planRollout(threeWorkers("2.2.1").build(), upgrade("3.7.1"), policy);
    expect(plan.eagerWindows).toEqual([{ fromStep: 1, toStep: 3 }]);
    expect(plan.steps.map((s) => s.protocolAfter)).toEqual(["eager", "eager", "sessioned"]);
    expect(plan.steps.every((s) => s.disruption === "eager")).toBe(true);
    expect(plan.findings.find((f) => f.code === "eager-window")?.severity).toBe("warn");
    expect(plan.needsApproval).toBe(true);
    expect(plan.steps[0]?.predictedInterruptions).toBeGreaterThan(0);
  });

  it("one worker configured eager keeps the group eager until it restarts with the default", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), {
      ...policy,
      connectProtocolByWorker: { "worker-3": "eager" },
    });
    expect(plan.eagerWindows).toEqual([{ fromStep: 1, toStep: 3 }]);
  });

  it("2.3 workers give a compatible window (signing off) and no eager one", () => {
    const plan = planRollout(threeWorkers("2.3.1").build(), upgrade("3.7.1"), policy);
    expect(plan.eagerWindows).toEqual([]);
    expect(plan.compatibleWindows).toEqual([{ fromStep: 1, toStep: 3 }]);
    expect(plan.steps.map((s) => s.protocolAfter)).toEqual(["compatible", "compatible", "sessioned"]);
    expect(plan.findings.map((f) => f.code)).toContain("compatible-window");
  });

  it("an unknown version is assumed eager-only with a warning", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("9.1.0"), policy);
    expect(plan.findings.find((f) => f.code === "protocol-unknown")?.message).toContain("9.1.0");
    expect(plan.eagerWindows.length).toBeGreaterThan(0);
  });
});

describe("planRollout: delay analysis and prediction", () => {
  it("a follower that fits in the delay is down ≈ the delay and does not move", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), policy);
    const follower = plan.steps[0];
    expect(follower?.disruption).toBe("held");
    expect(follower?.predictedMoves).toBe(0);
    expect(follower?.predictedDowntimeMs).toBeGreaterThanOrEqual(300_000);
    expect(follower?.predictedDowntimeMs).toBeLessThan(320_000);
  });

  it("the leader is reassigned at once and some tasks move back", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), policy);
    const leader = plan.steps[2];
    expect(leader?.disruption).toBe("leader");
    expect(leader?.predictedDowntimeMs).toBeLessThan(30_000);
    expect(leader?.predictedMoves).toBe(8);
  });

  it("a restart longer than the delay predicts moves and recommends a delay", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), {
      ...policy,
      scheduledRebalanceMaxDelayMs: 30_000,
    });
    expect(plan.steps[0]?.disruption).toBe("reassigned");
    expect(plan.steps[0]?.predictedMoves).toBeGreaterThan(0);
    expect(plan.findings.find((f) => f.code === "delay-below-restart")?.severity).toBe("warn");
    expect(plan.delay.recommendedDelayMs).toBe(90_000);
  });

  it("recommends a delay near a short restart: three times a 5.5 s restart, up to the next 10 s", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), {
      ...policy,
      scheduledRebalanceMaxDelayMs: 60_000,
      expectedRestartMs: 5_500,
    });
    expect(plan.findings.find((f) => f.code === "delay-far-above-restart")?.message).toMatch(/about 20s/);
    expect(plan.delay.recommendedDelayMs).toBe(20_000);
  });

  it("uses the default delay when none is declared and says so", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), {
      ...policy,
      scheduledRebalanceMaxDelayMs: null,
    });
    expect(plan.delay).toMatchObject({ delayMs: 300_000, source: "default" });
    expect(plan.findings.find((f) => f.code === "delay-assumed-default")?.severity).toBe("info");
  });

  it("recommends a shorter delay when it is far above the restart", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), {
      ...policy,
      expectedRestartMs: 20_000,
    });
    expect(plan.findings.find((f) => f.code === "delay-far-above-restart")?.severity).toBe("info");
    expect(plan.delay.recommendedDelayMs).toBe(50_000);
  });

  it.each([
    ["3.6.0", "delay-zero-without-fix"],
    ["3.6.1", "delay-zero"],
  ])("delay 0 on %s → %s", (version, code) => {
    const plan = planRollout(threeWorkers(version).build(), upgrade("3.7.1"), {
      ...policy,
      scheduledRebalanceMaxDelayMs: 0,
    });
    expect(plan.findings.map((f) => f.code)).toContain(code);
  });

  it("totals add up the steps", () => {
    const plan = planRollout(threeWorkers("3.6.1").build(), upgrade("3.7.1"), policy);
    expect(plan.totals.steps).toBe(3);
    expect(plan.totals.predictedMoves).toBe(plan.steps.reduce((a, s) => a + s.predictedMoves, 0));
    expect(plan.totals.predictedWallMs.safe).toBeGreaterThan(2 * 300_000);
  });
});

describe("planRollout: pace window", () => {
  const sixWorkers = () => {
    const names = ["worker-1", "worker-2", "worker-3", "worker-4", "worker-5", "worker-6"];
    return aCluster()
      .withWorkers(6, (w) => w.version("3.6.1"))
      .leader("worker-6")
      .withConnector("orders", (c) => c.tasks(12, "RUNNING", names))
      .build();
  };

  it("with the optional held-share cap and leaderClosesLastWindow off: capped windows, the leader alone", () => {
    const plan = planRollout(sixWorkers(), upgrade("3.7.1"), {
      ...policy,
      pace: "window",
      windowMaxHeldShare: 0.34,
      leaderClosesLastWindow: false,
    });
    expect(plan.windows.map((w) => w.steps)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(plan.windows.every((w) => w.predictedHeldShare <= 0.34)).toBe(true);
    expect(plan.windows[0]?.predictedDeadlineMs).toBe(300_000);
    expect(plan.steps[5]).toMatchObject({ isLeader: true, window: null });
    expect(plan.steps[4]?.window).toBeNull();
    expect(plan.steps[1]?.predictedDowntimeMs).toBeLessThan(plan.steps[0]?.predictedDowntimeMs ?? 0);
    expect(plan.totals.predictedWallMs.window).toBeLessThan(plan.totals.predictedWallMs.safe);
  });

  it("bounds a window by the deadline: k* = 1 + ⌊(D − r̂ − m)/s⌋ followers; the leader closes the last one", () => {
    // D 300 s, r̂ 100 s, m = 10 % × 100 s + 5 s, s = 101 s: k* = 1 + ⌊185/101⌋ = 2
    const plan = planRollout(sixWorkers(), upgrade("3.7.1"), {
      ...policy,
      pace: "window",
      expectedRestartMs: 100_000,
    });
    expect(plan.windows.map((w) => [w.steps, w.closedByLeader])).toEqual([
      [[1, 2], false],
      [[3, 4], false],
      [[5, 6], true],
    ]);
  });

  it("never windows eager steps", () => {
    const snapshot = aCluster()
      .withWorkers(6, (w) => w.version("2.2.0"))
      .leader("worker-6")
      .withConnector("orders", (c) => c.tasks(12, "RUNNING", ["worker-1", "worker-2", "worker-3"]))
      .build();
    const plan = planRollout(snapshot, upgrade("3.7.1"), {
      ...policy,
      pace: "window",
      windowMaxHeldShare: 1,
    });
    expect(plan.windows).toEqual([]);
  });
});
