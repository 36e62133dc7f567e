import { describe, expect, it } from "vitest";
import { fidelityChartSvg, timingPoints } from "../../bench/fidelity/fidelity-chart.js";
import type { Row } from "../../bench/fidelity/run-fidelity.js";

const row = (over: Partial<Row>): Row => ({
  version: "3.9.1",
  scenario: "follower-bounce",
  observation: "deadline after the stop (ms)",
  sim: 15_000,
  real: 16_900,
  tolerance: 2_500,
  verdict: "agrees",
  note: null,
  ...over,
});

describe("the fidelity run's chart", () => {
  it("draws the timings only: each with the simulator's value, the lab's and the tolerance", () => {
    const rows = [
      row({}),
      row({ observation: "moves", sim: 0, real: 0, tolerance: null }),
      row({ observation: "its tasks are UNASSIGNED", sim: true, real: true, tolerance: null }),
      row({
        scenario: "crash-vs-graceful",
        observation: "noticed after (ms)",
        sim: 6_000,
        real: 12_000,
        verdict: "differs",
      }),
      row({ observation: "tasks back after (ms)", real: null }),
    ];
    expect(timingPoints(rows)).toEqual([
      {
        label: "3.9.1 follower-bounce: deadline after the stop",
        simMs: 15_000,
        realMs: 16_900,
        toleranceMs: 2_500,
        verdict: "agrees",
      },
      {
        label: "3.9.1 crash-vs-graceful: noticed after",
        simMs: 6_000,
        realMs: 12_000,
        toleranceMs: 2_500,
        verdict: "differs",
      },
    ]);
    const svg = fidelityChartSvg(rows, "test run");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("3.9.1 crash-vs-graceful: noticed after");
    expect(svg).toContain("lab: differs");
  });
});
