import { describe, expect, it } from "vitest";
import { clusterStateSentence, planVsRealityText } from "../../src/wording/summary-text.js";
import { aRollout, heldReason } from "../chat/views/rollout-state-builder.js";

const held = heldReason("connect-3", 14, 120_000);

describe("planVsRealityText", () => {
  it.each([
    [
      {
        tasksMoved: { predicted: 2, real: 2 },
        taskDowntimeMs: { predicted: 100_000, real: 74_000 },
        dataFlowGapMs: null,
        wallMs: { predicted: 220_000, real: 105_000 },
        interruptions: { predicted: 0 },
      },
      "moves 2 (plan 2) · downtime 74 task-seconds (plan 100 task-seconds) · wall 1m45s (plan 3m40s) · interruptions planned 0",
    ],
    [
      {
        tasksMoved: { predicted: 0, real: 6 },
        taskDowntimeMs: { predicted: 0, real: 0 },
        dataFlowGapMs: null,
        wallMs: { predicted: 3_600_000, real: 4_000_000 },
        interruptions: { predicted: 3 },
      },
      "moves 6 (plan 0) · downtime 0 task-seconds (plan 0 task-seconds) · wall 1h06m (plan 1h00m) · interruptions planned 3",
    ],
    [
      {
        tasksMoved: { predicted: 0, real: 0 },
        taskDowntimeMs: { predicted: 200_000, real: 180_000 },
        dataFlowGapMs: { predicted: 25_000, real: 23_000 },
        wallMs: { predicted: 100_000, real: 99_000 },
        interruptions: { predicted: 0 },
      },
      "moves 0 (plan 0) · longest data gap 23s (plan 25s) · wall 1m39s (plan 1m40s) · interruptions planned 0",
    ],
  ])("%j", (p, text) => expect(planVsRealityText(p)).toBe(text));
});

describe("clusterStateSentence: where every worker stands, in one sentence", () => {
  it.each([
    { name: "nothing planned", state: () => aRollout().planning().build(), text: "no worker was restarted." },
    {
      name: "an upgrade half done, one settling",
      state: () => aRollout({ workers: 4 }).settledThrough(2).settling(3, [held]).build(),
      text: "connect-1, connect-2 restarted on 3.7.1; connect-3 in flight (settling): 14 tasks of connect-3 held by the scheduled delay: 2m00s left; connect-4 not restarted.",
    },
    {
      name: "a plain restart: no version named; a skipped worker is neither restarted nor pending",
      state: () => aRollout({ workers: 3, to: "restart" }).settled(1).skipped(2).build(),
      text: "connect-1 restarted; connect-3 not restarted.",
    },
    {
      name: "a failed restart, continued steps count as restarted",
      state: () => aRollout({ workers: 3 }).continued(1, "U2", []).failed(2, "webhook answered 500").build(),
      text: "connect-1 restarted on 3.7.1; connect-2 failed; connect-3 not restarted.",
    },
  ])("$name", ({ state, text }) => expect(clusterStateSentence(state())).toBe(text));
});
