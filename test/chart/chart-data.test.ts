import { describe, expect, it } from "vitest";
import { SYNTHETIC_START, syntheticRollout } from "../../bench/chart/synthetic-rollout.js";
import { buildChartData } from "../../src/chart/chart-data.js";

describe("buildChartData", () => {
  const state = syntheticRollout({
    workers: 6,
    windowSize: 2,
    restartMs: 10_000,
    settleMs: 12_000,
    delayMs: 60_000,
  });
  const data = buildChartData(state);
  const step = (n: number) => {
    const s = state.steps.find((x) => x.step === n);
    if (s === undefined) throw new Error(`no step ${n}`);
    return s;
  };
  const rel = (at: number | null) => (at === null ? null : at - SYNTHETIC_START);

  it("titles the chart with cluster, target and result, and spans start to finish", () => {
    expect(data.title).toBe("prod-connect → v3.9.1: succeeded");
    expect(data.subtitle).toContain("6 workers");
    expect(data.running).toBe(false);
    expect(data.spanMs).toBe(rel(state.finishedAt));
  });

  it("draws one lane per worker in step order, the leader marked, each down from its restart until back", () => {
    expect(data.lanes.map((l) => l.worker)).toEqual(state.steps.map((s) => s.worker));
    expect(data.lanes.filter((l) => l.isLeader).map((l) => l.worker)).toEqual(["worker-6"]);
    for (const lane of data.lanes) {
      const s = step(lane.step);
      const down = lane.segments.find((g) => g.kind === "down");
      expect(down).toEqual({ kind: "down", from: rel(s.restartIssuedAt), to: rel(s.backAt) });
    }
  });

  it("keeps a step crossed inside a window settling until its window's gate passes", () => {
    // Steps 1 and 2 share a pace window: 1 is crossed inside it, 2's gate closes it.
    const lane1 = data.lanes[0];
    expect(lane1?.segments.map((g) => g.kind)).toEqual(["down", "settling", "on-target"]);
    expect(lane1?.segments[1]).toEqual({
      kind: "settling",
      from: rel(step(1).backAt),
      to: rel(step(2).settledAt),
    });
    expect(lane1?.segments[2]).toEqual({ kind: "on-target", from: rel(step(2).settledAt), to: data.spanMs });
  });

  it("shades the pace windows as they ran and marks their deadlines (none for the leader's step)", () => {
    expect(data.windows).toEqual([
      { kind: "pace", steps: [1, 2], from: rel(step(1).restartIssuedAt), to: rel(step(2).settledAt) },
      { kind: "pace", steps: [3, 4], from: rel(step(3).restartIssuedAt), to: rel(step(4).settledAt) },
      { kind: "pace", steps: [5], from: rel(step(5).restartIssuedAt), to: rel(step(5).settledAt) },
    ]);
    const delay = state.settings.delayMs;
    expect(data.deadlines).toEqual([
      { at: (rel(step(1).restartIssuedAt) ?? 0) + delay, steps: [1, 2] },
      { at: (rel(step(3).restartIssuedAt) ?? 0) + delay, steps: [3, 4] },
      { at: (rel(step(5).restartIssuedAt) ?? 0) + delay, steps: [5] },
    ]);
  });

  it("puts each step's start on the share chart and the share of tasks not running and not flowing", () => {
    expect(data.stepStarts.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(data.share).toHaveLength(state.timeline.length);
    const peak = Math.max(...data.share.map((p) => p.down));
    expect(peak).toBeCloseTo(2 / 6);
    expect(data.flowVisible).toBe(true);
    expect(data.share.every((p) => p.notFlowing === p.down)).toBe(true);
  });

  it("shows an eager window and its approval with who and when", () => {
    const eager = syntheticRollout({ workers: 4, eagerSteps: 3, approvedBy: "U0CAROL" });
    const chart = buildChartData(eager);
    expect(chart.windows).toEqual([expect.objectContaining({ kind: "eager", steps: [1, 2, 3] })]);
    expect(chart.approvals).toEqual([
      { at: 8_000, kind: "eager-window", step: 1, decision: "approve", by: "U0CAROL" },
    ]);
    // An eager window holds no tasks for a deadline; the leader's step has none either.
    expect(chart.deadlines).toEqual([]);
  });

  it("draws a running rollout up to now: the step in flight down, later steps without segments", () => {
    const running = syntheticRollout({ workers: 5, runningAtStep: 3 });
    const now = running.updatedAt + 30_000;
    const chart = buildChartData(running, { now });
    expect(chart.running).toBe(true);
    expect(chart.title).toBe("prod-connect → v3.9.1: running, 2 of 5 steps done");
    expect(chart.spanMs).toBe(now - SYNTHETIC_START);
    expect(chart.lanes[2]?.segments).toEqual([
      { kind: "down", from: (running.steps[2]?.restartIssuedAt ?? 0) - SYNTHETIC_START, to: chart.spanMs },
    ]);
    expect(chart.lanes[3]?.segments).toEqual([]);
    expect(chart.lanes[4]?.segments).toEqual([]);
  });

  it("says in the title when the run drawing it was interrupted", () => {
    const running = syntheticRollout({ workers: 5, runningAtStep: 3 });
    expect(buildChartData(running, { interrupted: true }).title).toBe(
      "prod-connect → v3.9.1: interrupted, 2 of 5 steps done",
    );
  });

  it("shows a prompt still waiting as an approval without decision", () => {
    const base = syntheticRollout({ workers: 3, runningAtStep: 2 });
    const waiting = {
      ...base,
      phase: {
        kind: "awaiting-approval" as const,
        approval: {
          id: "a9",
          kind: "slow-gate" as const,
          step: 2,
          options: ["keep-waiting", "abort"] as const,
          askedAt: base.updatedAt,
          facts: { kind: "gate-slow" as const, worker: "worker-2", elapsedMs: 200_000, reasons: [] },
        },
        resume: { kind: "step-done" as const, step: 2 },
      },
    };
    const chart = buildChartData(waiting);
    expect(chart.title).toBe("prod-connect → v3.9.1: waiting for approval");
    expect(chart.approvals.at(-1)).toEqual({
      at: base.updatedAt - SYNTHETIC_START,
      kind: "slow-gate",
      step: 2,
      decision: null,
      by: null,
    });
  });
});
