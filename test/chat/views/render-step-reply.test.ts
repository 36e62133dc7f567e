import { describe, expect, it } from "vitest";
import { renderStepReply } from "../../../src/chat/views/render-step-reply.js";
import type { RolloutState } from "../../../src/core/rollout/rollout-state.js";
import type { GateReason } from "../../../src/core/settle/settle-types.js";
import { blockText, limitViolations } from "./block-text.js";
import { aRollout, heldReason, MINUTE, SECOND, stepStart } from "./rollout-state-builder.js";

function reply(state: RolloutState, n: number, now: number): string {
  const step = state.steps[n - 1];
  if (step === undefined) throw new Error(`no step ${n}`);
  const message = renderStepReply(state, step, now);
  expect(limitViolations(message)).toEqual([]);
  return blockText(message);
}

const notRunning: GateReason = {
  code: "tasks-not-running",
  tasks: [{ task: "orders-sink/3", state: "UNASSIGNED", workerId: null }],
  message: "1 task not RUNNING on a live worker yet (orders-sink/3 UNASSIGNED)",
};
const unstable: GateReason = {
  code: "assignment-unstable",
  stablePolls: 1,
  needed: 3,
  message: "assignment identical for 1 of 3 polls",
};
const rebalancing: GateReason = {
  code: "rebalancing",
  workers: ["connect-1"],
  message: "a rebalance is running (connect-1)",
};
const recent: GateReason = {
  code: "rebalance-recent",
  remainingMs: 4000,
  message: "the last rebalance was 6s ago; waiting for a quiet period",
};
const incomplete: GateReason = {
  code: "assignment-incomplete",
  assigned: 70,
  configured: 72,
  message: "workers hold 70 of 72 configured tasks",
};
const taskFailed: GateReason = {
  code: "task-failed",
  task: "orders-sink/2",
  trace: "boom",
  message: "orders-sink/2 FAILED: boom",
};

describe("renderStepReply", () => {
  it("pending", () => {
    expect(reply(aRollout().build(), 1, stepStart(1))).toMatchSnapshot();
  });

  it("restart issued (no detail yet)", () => {
    expect(reply(aRollout().settled(1).restartIssued(2).build(), 2, stepStart(2) + SECOND)).toMatchSnapshot();
  });

  it("waiting for the worker to come back", () => {
    const state = aRollout().settled(1).waitingBack(2).build();
    expect(reply(state, 2, stepStart(2) + 30 * SECOND)).toMatchSnapshot();
  });

  it("settling, held by the scheduled delay (shown first, with its countdown)", () => {
    const state = aRollout()
      .settled(1)
      .settling(2, [unstable, heldReason("connect-2", 14, 130_000)], {
        tasksMoved: 0,
        taskDowntimeMs: 3 * MINUTE,
      })
      .build();
    expect(reply(state, 2, stepStart(2) + 2 * MINUTE)).toMatchSnapshot();
  });

  it("settling with other reasons: failures first, at most 5 lines then +N more", () => {
    const state = aRollout()
      .settled(1)
      .settling(2, [
        unstable,
        rebalancing,
        recent,
        incomplete,
        notRunning,
        taskFailed,
        { code: "no-polls", message: "no poll of the cluster yet" },
      ])
      .build();
    const text = reply(state, 2, stepStart(2) + 3 * MINUTE);
    expect(text).toMatchSnapshot();
    expect(text).toContain("+2 more");
    expect(text.indexOf("orders-sink/2 FAILED")).toBeLessThan(text.indexOf("assignment identical"));
  });

  it("settled", () => {
    expect(reply(aRollout().settled(1).build(), 1, stepStart(2))).toMatchSnapshot();
  });

  it("settled, with the data its tasks stopped and a sink's growing lag", () => {
    const state = aRollout()
      .settled(1)
      .dataFlow(1, { "orders/0": 21_000, "orders/3": 23_400, "orders/5": 20_100 }, [
        { task: "orders-sink/2", lag: 12_400, peak: 12_400, trend: "falling" },
        { task: "orders-sink/0", lag: 120, peak: 1_840, trend: "falling" },
        { task: "orders-sink/1", lag: 0, peak: 900, trend: "steady" },
      ])
      .build();
    const text = reply(state, 1, stepStart(2));
    expect(text).toContain("📉 data stopped 21s for connect-1's 3 tasks; longest 23s, orders/3");
    expect(text).toContain("🐢 lag 12,400 records on orders-sink/2, falling");
    expect(text).toContain("🐢 lag rose to 1,840 records on orders-sink/0 during the step, now 120, falling");
    expect(text).toContain("🐢 lag rose to 900 records on orders-sink/1 during the step, back to 0");
  });

  it("settled leader step is marked", () => {
    const state = aRollout({ workers: 3 }).settledThrough(3, { tasksMoved: 6 }).build();
    const text = reply(state, 3, stepStart(4));
    expect(text).toContain("👑 group leader");
    expect(text).toMatchSnapshot();
  });

  it("skipped", () => {
    expect(
      reply(aRollout().skipped(1, { kind: "on-target", version: "3.7.1" }).build(), 1, stepStart(2)),
    ).toMatchSnapshot();
  });

  it("continued anyway", () => {
    const state = aRollout().settled(1).continued(2, "U2", [taskFailed]).build();
    expect(reply(state, 2, stepStart(3))).toMatchSnapshot();
  });

  it("failed", () => {
    const state = aRollout()
      .settled(1)
      .failed(2, 'kubectl exited with code 1: pods "connect-2" is forbidden')
      .build();
    expect(reply(state, 2, stepStart(3))).toMatchSnapshot();
  });
});
