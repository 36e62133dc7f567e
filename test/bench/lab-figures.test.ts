import { describe, expect, it } from "vitest";
import {
  followerStepInterruptions,
  gapByTask,
  gapFigures,
  noDataSeries,
  peakShare,
  spreadOf,
} from "../../bench/lab/lab-figures.js";

const TASKS = ["a/0", "a/1", "b/0", "b/1"];

describe("lab bench figures from the lab's ground truth", () => {
  it("sums each task's gaps inside the run, clips them at its ends and closes an open one at the end", () => {
    const gaps = [
      { task: "a/0", fromMs: 500, toMs: 2_000 }, // began before the run: 1 s inside
      { task: "a/0", fromMs: 5_000, toMs: 7_000 },
      { task: "a/1", fromMs: 3_000, toMs: null }, // still open at the end: 7 s
      { task: "b/0", fromMs: 20_000, toMs: 21_000 }, // after the run
    ];
    expect([...gapByTask(gaps, TASKS, 1_000, 10_000)]).toEqual([
      ["a/0", 3_000],
      ["a/1", 7_000],
      ["b/0", 0],
      ["b/1", 0],
    ]);
    expect(gapFigures(gaps, TASKS, 1_000, 10_000)).toEqual({ p50Ms: 0, maxMs: 7_000, sumMs: 10_000 });
  });

  it("peak share: tasks without data at the same instant, not the sum of their gaps", () => {
    // one after the other: never more than one at once
    const serial = [
      { task: "a/0", fromMs: 0, toMs: 1_000 },
      { task: "a/1", fromMs: 1_000, toMs: 2_000 },
      { task: "b/0", fromMs: 2_000, toMs: 3_000 },
    ];
    expect(peakShare(serial, 4, 0, 10_000)).toBe(0.25);
    // overlapping: three at once between 2 s and 3 s
    const overlapping = [
      { task: "a/0", fromMs: 0, toMs: 3_000 },
      { task: "a/1", fromMs: 1_000, toMs: 4_000 },
      { task: "b/0", fromMs: 2_000, toMs: null },
    ];
    expect(noDataSeries(overlapping, 0, 5_000)).toEqual([
      [0, 1],
      [1_000, 2],
      [2_000, 3],
      [3_000, 2],
      [4_000, 1],
      [5_000, 0],
    ]);
    expect(peakShare(overlapping, 4, 0, 5_000)).toBe(0.75);
    expect(peakShare([], 4, 0, 5_000)).toBe(0);
  });

  it("charges each interruption to the worker stopped last before it; follower steps are the non-leaders'", () => {
    const stops = [
      { worker: "worker-6", at: 1_000, wasLeader: false },
      { worker: "worker-1", at: 10_000, wasLeader: true },
      { worker: "worker-2", at: 20_000, wasLeader: false },
    ];
    const interruptions = [
      { task: "a/0", worker: "worker-2", at: 500 }, // before any step: not charged
      { task: "a/1", worker: "worker-3", at: 5_000 }, // worker-6's step
      { task: "b/0", worker: "worker-3", at: 12_000 }, // the leader's step
      { task: "b/1", worker: "worker-4", at: 25_000 }, // worker-2's step
    ];
    expect(followerStepInterruptions({ stops, interruptions })).toBe(2);
  });

  it("spread: mean, min and max; none without values", () => {
    expect(spreadOf([3, 1, 2])).toEqual({ mean: 2, min: 1, max: 3 });
    expect(spreadOf([])).toBeNull();
  });
});
