import { describe, expect, it } from "vitest";
import { renderParent } from "../../../src/chat/views/render-parent.js";
import type { RolloutState } from "../../../src/core/rollout/rollout-state.js";
import type { GateReason } from "../../../src/core/settle/settle-types.js";
import { blockText, limitViolations } from "./block-text.js";
import { aRollout, heldReason, MINUTE, SECOND, stepStart, T0 } from "./rollout-state-builder.js";

function parent(state: RolloutState, now: number): string {
  const message = renderParent(state, now);
  expect(limitViolations(message)).toEqual([]);
  return blockText(message);
}

const slowReason: GateReason = {
  code: "gate-slow",
  overdueMs: 60_000,
  message: "settling is 1m00s slower than expected",
};

describe("renderParent", () => {
  it("planning", () => {
    expect(parent(aRollout().planning().build(), T0 + 5 * SECOND)).toMatchSnapshot();
  });

  it("running: restarting a worker", () => {
    const state = aRollout().settledThrough(2, { tasksMoved: 1 }).restartIssued(3).build();
    const text = parent(state, stepStart(3) + 5 * SECOND);
    expect(text).toContain("▰▰▱▱▱▱ 2/6");
    expect(text).toContain("restarting connect-3");
    expect(text).toMatchSnapshot();
  });

  it("running: waiting for the scheduled delay, counting down from now", () => {
    const state = aRollout()
      .settledThrough(2)
      .settling(3, [heldReason("connect-3", 14, 200_000)])
      .build();
    // the baseline deadline is stepStart(3) + 5m; 2m50s after the stop, 2m10s are left
    const text = parent(state, stepStart(3) + 2 * MINUTE + 50 * SECOND);
    expect(text).toContain("waiting: 14 tasks held by the scheduled delay, 2m10s left");
    expect(text).toMatchSnapshot();
  });

  it("running: waiting on another reason, with an eager window in the plan", () => {
    const state = aRollout({ eagerWindows: [{ fromStep: 1, toStep: 2 }] })
      .settledThrough(3)
      .settling(4, [
        slowReason,
        {
          code: "assignment-unstable",
          stablePolls: 1,
          needed: 3,
          message: "assignment identical for 1 of 3 polls",
        },
      ])
      .build();
    expect(parent(state, stepStart(4) + 8 * MINUTE)).toMatchSnapshot();
  });

  it("awaiting approval", () => {
    const state = aRollout({ eagerWindows: [{ fromStep: 1, toStep: 1 }] })
      .awaiting({ kind: "eager-window", cluster: "prod-cluster", worker: "connect-1" })
      .build();
    const text = parent(state, stepStart(1) + 10 * SECOND);
    expect(text).toContain("awaiting approval: eager window");
    expect(text).toMatchSnapshot();
  });

  it("paused", () => {
    const state = aRollout().settledThrough(2).paused(3, "U777").build();
    expect(parent(state, stepStart(3))).toMatchSnapshot();
  });

  it("running with a pause requested mid-step", () => {
    const state = aRollout()
      .settledThrough(1)
      .waitingBack(2)
      .with({ pendingControl: { action: "pause", by: "U777", at: stepStart(2) + 10 * SECOND } })
      .build();
    expect(parent(state, stepStart(2) + 20 * SECOND)).toContain("pause requested by <@U777>");
  });

  it("succeeded: carries the final report", () => {
    const state = aRollout()
      .settledThrough(6, { tasksMoved: 1 })
      .finished("succeeded", { kind: "all-settled" })
      .build();
    expect(parent(state, stepStart(8))).toMatchSnapshot();
  });

  it("aborted mid-settle", () => {
    const state = aRollout()
      .settledThrough(2)
      .settling(3, [heldReason("connect-3", 14, 120_000)])
      .finished("aborted", {
        kind: "aborted-while-settling",
        by: "U2",
        worker: "connect-3",
        gate: [heldReason("connect-3", 14, 120_000)],
      })
      .build();
    expect(parent(state, stepStart(4))).toMatchSnapshot();
  });

  it("restart failed, then aborted at the prompt", () => {
    const state = aRollout()
      .settledThrough(3)
      .failed(4, "webhook answered 500: internal error")
      .finished("aborted", { kind: "aborted-at-prompt", by: "U2", approval: "restart-failed" })
      .build();
    expect(parent(state, stepStart(5))).toMatchSnapshot();
  });

  it("restart rollouts say so in the header", () => {
    const state = aRollout({ to: "restart" }).settledThrough(1).build();
    expect(renderParent(state, stepStart(2)).blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "connect-roll · prod-cluster rolling restart", emoji: true },
    });
  });
});
