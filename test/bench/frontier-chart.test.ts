import { describe, expect, it } from "vitest";
import { type FrontierPoint, frontierOption, paretoFrontier } from "../../bench/chart/frontier-chart.js";
import { renderOptionSvg } from "../../src/chart/render-chart.js";

const point = (strategy: FrontierPoint["strategy"], wallMs: number, gapMs: number): FrontierPoint => ({
  strategy,
  label: strategy,
  wallMs,
  gapMs,
  peakShare: 0.5,
});

describe("the benchmark's frontier", () => {
  const safe = point("connect-roll", 3_600_000, 10_000_000);
  const window = point("connect-roll-window", 500_000, 6_000_000);
  const sts = point("statefulset-tasks-ready", 520_000, 5_000_000);
  const deployment = point("deployment", 600_000, 7_000_000);

  it("keeps the strategies no other beats on both wall time and data gap, fastest first", () => {
    expect(paretoFrontier([safe, window, sts, deployment])).toEqual([window, sts]);
    expect(paretoFrontier([safe])).toEqual([safe]);
  });

  it("draws every strategy, named with its figures, and the floor", () => {
    const svg = renderOptionSvg(
      frontierOption({
        title: "(a) wall time against Σ data gap",
        subtitle: "test",
        points: [safe, window],
        floor: { wallMs: 40_000, gapMs: 1_000_000 },
        frontier: [window],
      }),
      { width: 1000, height: 680 },
    );
    expect(svg).toContain("connect-roll: 1h00m, Σ 2h46m, peak 50 %");
    expect(svg).toContain("floor (per-figure bound)");
  });
});
