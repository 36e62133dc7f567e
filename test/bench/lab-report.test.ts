import { describe, expect, it } from "vitest";
import { labFrontierData } from "../../bench/lab/lab-frontier.js";
import { evaluateGoals } from "../../bench/lab/lab-goals.js";
import { addRun, labFloor, median, renderLabTable } from "../../bench/lab/lab-report.js";
import { DEFAULT_LAB, type LabRun, restartsFrom } from "../../bench/lab-bench.js";

const SETTINGS = { ...DEFAULT_LAB, cpus: 2 };

function run(over: Partial<LabRun> = {}): LabRun {
  return {
    wallMs: 100_000,
    gap: { p50Ms: 30_000, maxMs: 32_000, sumMs: 700_000 },
    peakShare: 1 / 6,
    moves: 4,
    interruptions: 2,
    stopTheWorld: 0,
    followerStepInterruptions: 0,
    settled: true,
    restartsMs: [8_000],
    load1: 2.5,
    ...over,
  };
}

describe("the lab bench's results file and table", () => {
  it("measures a restart from each stop to the first sample after it that saw the worker joined", () => {
    const stops = [
      { worker: "worker-6", at: 1_000, wasLeader: false },
      { worker: "worker-5", at: 20_000, wasLeader: false },
      { worker: "worker-4", at: 40_000, wasLeader: false },
    ];
    const joins = new Map([
      ["worker-6", [500, 9_500]],
      ["worker-5", [28_000]],
    ]);
    expect(restartsFrom(stops, joins)).toEqual([8_500, 8_000]);
  });

  it("adds runs strategy by strategy, keeps the median restart, refuses other settings", () => {
    let file = addRun(null, SETTINGS, "strimzi", run({ restartsMs: [7_000, 9_000] }));
    file = addRun(file, SETTINGS, "strimzi", run({ restartsMs: [8_000] }));
    file = addRun(file, SETTINGS, "connect-roll", run({ restartsMs: [10_000] }));
    expect(file.strategies.map((s) => [s.id, s.runs.length])).toEqual([
      ["strimzi", 2],
      ["connect-roll", 1],
    ]);
    expect(file.measuredRestartMs).toBe(8_500);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([])).toBeNull();
    expect(() => addRun(file, { ...SETTINGS, delayMs: 60_000 }, "strimzi", run())).toThrow(
      /other lab settings/,
    );
    expect(labFloor(file)).toEqual({
      perTaskMs: 10_500,
      sumMs: 10_500 * 24,
      peakShare: 1 / 6,
      wallMs: 8_500 * 6,
    });
  });

  it("draws the lab's frontier: each strategy's mean filled, the simulator's hollow, the frontier through the lab's", () => {
    let file = addRun(
      null,
      SETTINGS,
      "strimzi",
      run({ wallMs: 60_000, gap: { p50Ms: 1, maxMs: 1, sumMs: 300_000 } }),
    );
    file = addRun(
      file,
      SETTINGS,
      "strimzi",
      run({ wallMs: 40_000, gap: { p50Ms: 1, maxMs: 1, sumMs: 320_000 } }),
    );
    file = addRun(file, SETTINGS, "connect-roll", run({ wallMs: 200_000 }));
    const sim = { ...run({ wallMs: 10_000, gap: { p50Ms: 1, maxMs: 1, sumMs: 10_000 } }) };
    file = { ...file, strategies: file.strategies.map((s) => (s.id === "strimzi" ? { ...s, sim } : s)) };
    const data = labFrontierData(file);
    expect(data.points.map((p) => [p.strategy, p.wallMs, p.gapMs, p.simulated === true])).toEqual([
      ["strimzi", 50_000, 310_000, false],
      ["connect-roll", 200_000, 700_000, false],
      ["strimzi", 10_000, 10_000, true],
    ]);
    // The simulated point beats both on both figures, but the frontier is drawn through the lab's points only.
    expect(data.frontier.map((p) => p.strategy)).toEqual(["strimzi"]);
    expect(data.floor).toEqual({ wallMs: 8_000 * 6, gapMs: 10_000 * 24 });
  });

  it("prints the mean with the spread, the simulator beside it, and each run's note", () => {
    let file = addRun(null, SETTINGS, "strimzi", run({ wallMs: 60_000, peakShare: 0.5 }));
    file = addRun(
      file,
      SETTINGS,
      "strimzi",
      run({ wallMs: 80_000, peakShare: 0.5, settled: false, note: "did not settle" }),
    );
    const sim = { ...run({ wallMs: 66_000 }), peakShare: 0.5 };
    const text = renderLabTable({ ...file, strategies: file.strategies.map((s) => ({ ...s, sim })) });
    expect(text).toContain("| strimzi | 2 | 70 s (60 s–80 s) [66 s] |");
    expect(text).toContain("| 1/2 |");
    expect(text).toContain("- strimzi run 2: did not settle");
    expect(text).toContain("Floor for this lab");
  });

  it("checks the goals on the means: which hold, which do not, which were not measured", () => {
    let file = addRun(
      null,
      SETTINGS,
      "connect-roll",
      run({ gap: { p50Ms: 30_000, maxMs: 34_000, sumMs: 1 } }),
    );
    file = addRun(file, SETTINGS, "connect-roll-window", run({ wallMs: 50_000, peakShare: 0.25 }));
    file = addRun(file, SETTINGS, "statefulset-tasks-ready", run({ wallMs: 100_000 }));
    const goals = evaluateGoals(file);
    const verdict = (name: string) => goals.find((g) => g.goal.startsWith(name))?.holds;
    expect(verdict("safe: peak")).toBe(true);
    expect(verdict("safe: max gap")).toBe(false); // 34 s > 30 s + 3 s
    expect(verdict("window: wall")).toBe(true); // 50 s ≤ 60 s
    expect(verdict("window: peak ≤ 0.5 × strimzi")).toBeNull();
    expect(verdict("rotate: Σ gap")).toBeNull();
  });

  it("checks pace rotate against Strimzi's roller of the same file", () => {
    let file = addRun(
      null,
      SETTINGS,
      "strimzi",
      run({ wallMs: 60_000, peakShare: 0.5, gap: { p50Ms: 9_000, maxMs: 36_000, sumMs: 340_000 } }),
    );
    file = addRun(
      file,
      SETTINGS,
      "connect-roll-rotate",
      run({ wallMs: 120_000, peakShare: 0.25, gap: { p50Ms: 8_000, maxMs: 38_000, sumMs: 300_000 } }),
    );
    const goals = evaluateGoals(file);
    const verdict = (name: string) => goals.find((g) => g.goal.startsWith(name))?.holds;
    expect(verdict("rotate: Σ gap ≤ 0.9 × strimzi")).toBe(true); // 300 s ≤ 306 s
    expect(verdict("rotate: peak ≤ 0.5 × strimzi")).toBe(true); // 25 % ≤ 25 %
    expect(verdict("rotate: wall ≤ 1.5 × strimzi")).toBe(false); // 120 s > 90 s
  });
});
