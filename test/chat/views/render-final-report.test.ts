import { describe, expect, it } from "vitest";
import { renderFinalReport } from "../../../src/chat/views/render-final-report.js";
import type { RolloutState } from "../../../src/core/rollout/rollout-state.js";
import type { GateReason } from "../../../src/core/settle/settle-types.js";
import { blockText, limitViolations } from "./block-text.js";
import { aRollout, decision, heldReason, stepStart } from "./rollout-state-builder.js";

function report(state: RolloutState, now: number): string {
  const message = renderFinalReport(state, now);
  expect(limitViolations(message)).toEqual([]);
  return blockText(message);
}

const taskFailed: GateReason = {
  code: "task-failed",
  task: "orders-sink/2",
  trace: "boom",
  message: "orders-sink/2 FAILED: boom",
};

describe("renderFinalReport", () => {
  it("succeeded, with a decision and a continued step", () => {
    const state = aRollout({ eagerWindows: [{ fromStep: 1, toStep: 1 }] })
      .decided(decision(1, "approve"))
      .settled(1, { tasksMoved: 2, eagerRebalances: 1 })
      .continued(2, "U2", [taskFailed])
      .settled(3)
      .skipped(4)
      .settled(5)
      .settled(6, { tasksMoved: 6 })
      .dataFlow(1, { "orders/0": 21_000, "orders/3": 23_400, "orders-sink/1": 20_100 })
      .dataFlow(3, { "orders/1": 20_800 }, [
        { task: "orders-sink/2", lag: 12_400, peak: 12_400, trend: "falling" },
      ])
      .dataFlow(5, {})
      .finished("succeeded", { kind: "all-settled" })
      .build();
    expect(report(state, stepStart(8))).toMatchSnapshot();
  });

  it("aborted: which workers run what and which step was in flight", () => {
    const state = aRollout()
      .settledThrough(2)
      .waitingBack(3)
      .finished("aborted", { kind: "aborted", by: "U2" })
      .build();
    const text = report(state, stepStart(4));
    expect(text).toContain("• 2 on 3.7.1: connect-1, connect-2");
    expect(text).toContain("• 1 unknown (restart in flight): connect-3");
    expect(text).toContain("• 3 on 3.6.1: connect-4, connect-5, connect-6");
    expect(text).toContain(
      "Step 3 (connect-3) was in flight: restart issued at 14:13 UTC, not confirmed back",
    );
    expect(text).toMatchSnapshot();
  });

  it("failed between steps: says no step was in flight", () => {
    const state = aRollout({ to: "restart" })
      .settledThrough(2)
      .finished("failed", { kind: "worker-not-found", worker: "connect-3", cluster: "prod-cluster" })
      .build();
    const text = report(state, stepStart(4));
    expect(text).toContain("• 2 restarted: connect-1, connect-2");
    expect(text).toContain("No step was in flight; the next would have been connect-3.");
    expect(text).toMatchSnapshot();
  });

  it("aborted while settling keeps the gate's most important reason", () => {
    const gate: GateReason[] = [
      {
        code: "assignment-unstable",
        stablePolls: 1,
        needed: 3,
        message: "assignment identical for 1 of 3 polls",
      },
      heldReason("connect-1", 12, 60_000),
    ];
    const state = aRollout()
      .settling(1, gate)
      .finished("aborted", { kind: "aborted-while-settling", by: "U2", worker: "connect-1", gate })
      .build();
    expect(report(state, stepStart(2))).toContain(
      "the gate had not passed: 12 tasks of connect-1 held by the scheduled delay: 1m00s left (+1 more)",
    );
  });
});
