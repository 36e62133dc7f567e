import { describe, expect, it } from "vitest";
import { SYNTHETIC_START, syntheticRollout } from "../../bench/chart/synthetic-rollout.js";
import { buildChartData } from "../../src/chart/chart-data.js";
import { buildFleetChartData, type FleetChartRun } from "../../src/chart/fleet-chart-data.js";
import { renderChartSvg } from "../../src/chart/render-chart.js";
import type { RolloutState } from "../../src/core/rollout/rollout-state.js";

/** A rollout shifted to start `offsetMs` after the synthetic start (a later stage's cluster). */
function shifted(state: RolloutState, offsetMs: number, cluster: string): RolloutState {
  const at = (t: number | null) => (t === null ? null : t + offsetMs);
  return {
    ...state,
    cluster,
    startedAt: state.startedAt + offsetMs,
    updatedAt: state.updatedAt + offsetMs,
    finishedAt: at(state.finishedAt),
    steps: state.steps.map((s) => ({
      ...s,
      restartIssuedAt: at(s.restartIssuedAt),
      backAt: at(s.backAt),
      settledAt: at(s.settledAt),
    })),
    timeline: state.timeline.map((p) => ({ ...p, at: p.at + offsetMs })),
  };
}

describe("buildFleetChartData", () => {
  const staging = syntheticRollout({ workers: 3, restartMs: 10_000, settleMs: 5_000, delayMs: 20_000 });
  const stagingEnd = (staging.finishedAt ?? 0) - SYNTHETIC_START;
  const prod = shifted(staging, stagingEnd + 60_000, "prod-eu");
  const run: FleetChartRun = {
    fleet: "global",
    id: "fl-0a1b2c3d",
    target: "v3.9.1",
    status: "running",
    startedAt: SYNTHETIC_START,
    updatedAt: SYNTHETIC_START + 1,
    stages: [
      { clusters: [{ name: "staging", status: "succeeded" }] },
      {
        clusters: [
          { name: "prod-eu", status: "running" },
          { name: "prod-us", status: "pending" },
        ],
      },
    ],
  };
  const now = (prod.finishedAt ?? 0) + 30_000;
  const data = buildFleetChartData(
    run,
    new Map([
      ["staging", staging],
      ["prod-eu", prod],
    ]),
    now,
  );

  it("draws a lane per cluster in stage order, titled by the fleet's run", () => {
    expect(data.title).toBe("fleet global → v3.9.1: running");
    expect(data.subtitle).toContain("run fl-0a1b2c3d · 2 stages · 3 clusters");
    expect(data.lanes.map((l) => l.worker)).toEqual([
      "stage 1 · staging",
      "stage 2 · prod-eu",
      "stage 2 · prod-us",
    ]);
    expect(data.spanMs).toBe(now - SYNTHETIC_START);
  });

  it("marks a cluster down while one of its workers is, rolling otherwise, on target after it succeeded", () => {
    const own = buildChartData(staging).lanes.flatMap((l) => l.segments.filter((s) => s.kind === "down"));
    const lane = data.lanes[0]?.segments ?? [];
    expect(lane.filter((s) => s.kind === "down")).toEqual(own);
    expect(lane.at(-1)).toEqual({ kind: "on-target", from: stagingEnd, to: data.spanMs });
    // The later stage's cluster starts where its rollout did, after the soak.
    const prodLane = data.lanes[1]?.segments ?? [];
    expect(prodLane[0]?.from).toBe(stagingEnd + 60_000);
    // Not started: an empty lane.
    expect(data.lanes[2]?.segments).toEqual([]);
    // Segments never overlap within a lane.
    for (const l of data.lanes)
      for (const [i, s] of l.segments.entries())
        expect(s.from).toBeGreaterThanOrEqual(l.segments[i - 1]?.to ?? 0);
  });

  it("shows the worst cluster's share of tasks not running, and draws as SVG", () => {
    expect(Math.max(...data.share.map((p) => p.down))).toBe(
      Math.max(...buildChartData(staging).share.map((p) => p.down)),
    );
    expect(data.share.at(-1)?.down).toBe(0);
    const svg = renderChartSvg(data);
    expect(svg).toContain("stage 2 · prod-eu");
    expect(svg).toContain("fleet global → v3.9.1: running");
  });
});
