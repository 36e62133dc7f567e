import { describe, expect, it } from "vitest";
import { formatDuration, formatShortDuration } from "../../../src/core/format-duration.js";
import { toPlanJson } from "../../../src/core/plan/plan-json.js";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import { renderPlanText } from "../../../src/core/plan/render-plan-text.js";
import { aCluster } from "../../support/cluster-snapshot-builder.js";

const plan = planRollout(
  aCluster("prod")
    .withWorkers(3, (w) => w.version("2.2.1"))
    .leader("worker-3")
    .withConnector("orders", (c) => c.tasks(6, "RUNNING", ["worker-1", "worker-2", "worker-3"]))
    .build(),
  { kind: "upgrade", version: "3.7.1", argument: "v3.7.1" },
  { connectProtocol: null, scheduledRebalanceMaxDelayMs: null, expectedRestartMs: 60_000 },
);

describe("toPlanJson", () => {
  it("has the DESIGN §4 fields", () => {
    const json = JSON.parse(JSON.stringify(toPlanJson(plan))) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining(["cluster", "target", "steps", "eagerWindows", "findings"]),
    );
    expect(json.cluster).toBe("prod");
    const steps = json.steps as Record<string, unknown>[];
    expect(steps).toHaveLength(3);
    for (const s of steps) {
      expect(Object.keys(s)).toEqual(
        expect.arrayContaining([
          "worker",
          "isLeader",
          "protocolAfter",
          "predictedDowntimeMs",
          "predictedMoves",
          "reasons",
        ]),
      );
    }
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(json.eagerWindows).toEqual([{ fromStep: 1, toStep: 3 }]);
    for (const f of json.findings as Record<string, unknown>[])
      expect(Object.keys(f).sort()).toEqual(["code", "message", "severity"]);
  });
});

describe("renderPlanText", () => {
  it("renders a table, windows, totals and findings", () => {
    const text = renderPlanText(plan);
    expect(text).toContain("Plan for prod: upgrade to 3.7.1");
    expect(text).toContain("Leader: worker-3");
    expect(text).toMatch(/#\s+worker\s+role/);
    expect(text).toContain("worker-3  leader");
    expect(text).toContain("Eager window: steps 1–3");
    expect(text).toContain("[warn] eager-window");
    expect(text).toContain("This rollout needs approval.");
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0s"],
    [999, "1s"],
    [45_000, "45s"],
    [130_000, "2m10s"],
    [302_000, "5m02s"],
    [3_900_000, "1h05m"],
    [273_600_000, "3d04h"],
    [-5, "0s"],
  ])("%d ms → %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("formatShortDuration", () => {
  it.each([
    [0, "0s"],
    [240, "0.2s"],
    [2_500, "2.5s"],
    [3_000, "3s"],
    [9_960, "10s"],
    [130_000, "2m10s"],
  ])("%d ms → %s", (ms, text) => {
    expect(formatShortDuration(ms)).toBe(text);
  });
});
