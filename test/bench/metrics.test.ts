import { describe, expect, it } from "vitest";
import {
  aggregate,
  bestOther,
  countMovesWithReplacements,
  downtimeFigures,
  floorFigures,
  percentile,
  ratio,
} from "../../bench/metrics.js";
import type { RunFigures, RunResult } from "../../bench/run-types.js";
import { scenarioById } from "../../bench/scenarios.js";
import { formatFigure, formatRatio } from "../../bench/table.js";

function figures(wallMs: number, moves: number): RunFigures {
  return {
    wallMs,
    toolDoneMs: wallMs,
    settled: true,
    downtime: { sumMs: wallMs * 2, p50Ms: 1, p99Ms: 2, maxMs: 3 },
    moves,
    interruptions: 0,
    rebalances: 4,
    eagerRebalances: 0,
    peakShare: 0.5,
  };
}

function run(strategy: RunResult["strategy"], f: RunFigures | null): RunResult {
  return {
    strategy,
    scenario: "a",
    seed: 1,
    figures: f,
    note: f ? null : "runner not available",
    leader: null,
    leaderPosition: null,
    bot: null,
    followerSteps: null,
  };
}

describe("bench metrics", () => {
  it("takes nearest-rank percentiles", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it("sums downtime and finds its p50, p99 and max", () => {
    expect(downtimeFigures([0, 10, 20, 30])).toEqual({ sumMs: 60, p50Ms: 10, p99Ms: 30, maxMs: 30 });
  });

  it("divides by the floor and the best other strategy", () => {
    expect(ratio(10, 5)).toBe(2);
    expect(ratio(0, 0)).toBe(1);
    expect(ratio(3, 0)).toBe(Number.POSITIVE_INFINITY);
    expect(ratio(3, null)).toBeNull();
    const aggs = [
      aggregate("connect-roll", [run("connect-roll", figures(100, 0)), run("connect-roll", figures(300, 2))]),
      aggregate("strimzi", [run("strimzi", figures(150, 9))]),
      aggregate("all-at-once", [run("all-at-once", figures(50, 30))]),
      aggregate("deployment", [run("deployment", null)]),
    ];
    expect(aggs[0]?.mean?.wall).toBe(200);
    expect(aggs[0]?.mean?.moves).toBe(1);
    expect(aggs[0]?.max?.wall).toBe(300);
    expect(aggs[3]?.mean).toBeNull();
    expect(bestOther(aggs, "connect-roll", "wall")).toEqual({ strategy: "all-at-once", value: 50 });
    expect(bestOther(aggs, "connect-roll", "moves")).toEqual({ strategy: "strimzi", value: 9 });
  });

  it("puts the floor at one restart per task and nothing moved", () => {
    const a = scenarioById("a");
    if (!a) throw new Error("no scenario a");
    const floor = floorFigures(a);
    expect(floor.downP99).toBe(40_000 + 300 + 500);
    expect(floor.downSum).toBe(160 * 40_800);
    expect(floor.moves).toBe(0);
    expect(floor.peakShare).toBeCloseTo(1 / 12);
  });

  it("counts a task that runs again on a replaced worker as moved", () => {
    const entries = [
      { at: 0, task: "c/0", state: "RUNNING" as const, worker: "worker-1" },
      { at: 0, task: "c/1", state: "RUNNING" as const, worker: "worker-2" },
      { at: 10, task: "c/0", state: "stopped" as const, worker: "worker-1" },
      { at: 50, task: "c/0", state: "RUNNING" as const, worker: "worker-1" },
      { at: 60, task: "c/1", state: "RUNNING" as const, worker: "worker-1" },
    ];
    expect(countMovesWithReplacements(entries, new Map())).toBe(1);
    expect(countMovesWithReplacements(entries, new Map([["worker-1", [10]]]))).toBe(2);
  });

  it("formats figures and ratios", () => {
    expect(formatFigure("peakShare", 0.0833)).toBe("8.3%");
    expect(formatFigure("wall", 125_000)).toBe("2m05s");
    expect(formatFigure("moves", 2.5)).toBe("2.5");
    expect(formatFigure("rebalances", null)).toBe("—");
    expect(formatRatio(Number.POSITIVE_INFINITY)).toBe("∞");
    expect(formatRatio(1.234)).toBe("1.23×");
  });
});
