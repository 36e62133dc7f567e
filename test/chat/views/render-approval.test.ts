import { describe, expect, it } from "vitest";
import { ActionId, decodeActionValue } from "../../../src/chat/action-ids.js";
import { renderApprovalDecided, renderApprovalPrompt } from "../../../src/chat/views/render-approval.js";
import type { ApprovalKind, Decision, PendingApproval } from "../../../src/core/rollout/approval-types.js";
import type { RolloutState } from "../../../src/core/rollout/rollout-state.js";
import { blockText, limitViolations } from "./block-text.js";
import { aRollout, heldReason, SECOND, stepStart } from "./rollout-state-builder.js";

interface Case {
  kind: ApprovalKind;
  step: number | null;
  prompt: string;
  details: string[];
  options: Decision[];
}

/** Approvals as checkpoints written before facts held them: with their words (approval-text.test.ts: the facts). */
const CASES: Case[] = [
  {
    kind: "blocking-findings",
    step: null,
    prompt: "The plan has blocking findings. Start anyway?",
    details: [
      "[block] failed-tasks: orders-sink/3 is FAILED before the start",
      "[warn] delay-short: the delay (10s) is shorter than a restart",
    ],
    options: ["approve", "abort"],
  },
  {
    kind: "eager-window",
    step: 1,
    prompt:
      "Restarting connect-1 opens an eager window (steps 1–2): rebalances are stop-the-world. Go ahead?",
    details: ["Finish this window promptly: every rebalance inside it is stop-the-world."],
    options: ["approve", "abort"],
  },
  {
    kind: "slow-gate",
    step: 3,
    prompt:
      "The cluster has not settled after restarting connect-3 (8m12s so far, delay included). Keep waiting?",
    details: [
      heldReason("connect-3", 14, 0).message.replace("0m00s left", "deadline passed 1m00s ago"),
      "settling is 1m12s slower than expected",
    ],
    options: ["keep-waiting", "continue", "abort"],
  },
  {
    kind: "gate-failed",
    step: 3,
    prompt: "The settle gate failed after restarting connect-3. Continue with the next worker anyway?",
    details: ["orders-sink/2 FAILED: org.apache.kafka.connect.errors.ConnectException: boom"],
    options: ["continue", "abort"],
  },
  {
    kind: "config-changed",
    step: 3,
    prompt: "Connector configs changed during the rollout (config freeze). Go on?",
    details: ["connector orders-sink: task count 4 → 6"],
    options: ["approve", "abort"],
  },
  {
    kind: "restart-failed",
    step: 3,
    prompt: "Restarting connect-3 failed (it may have run partly). Retry the restart?",
    details: ["webhook answered 500", "Check the worker before retrying: the executor may have acted."],
    options: ["approve", "abort"],
  },
  {
    kind: "restart-unconfirmed",
    step: 3,
    prompt: "A restart of connect-3 was issued before a takeover but cannot be confirmed. Restart it again?",
    details: [
      "connect-3 answers and reports 3.6.1",
      "connect-roll never repeats a restart it cannot confirm without asking.",
    ],
    options: ["approve", "abort"],
  },
];

function stateWith(c: Case): { state: RolloutState; approval: PendingApproval } {
  const state = aRollout()
    .settledThrough(c.step === null ? 0 : c.step - 1)
    .awaiting(c)
    .build();
  if (state.phase.kind !== "awaiting-approval") throw new Error("not awaiting");
  return { state, approval: state.phase.approval };
}

describe("renderApprovalPrompt", () => {
  it.each(CASES)("$kind prompt and its decided form", (c) => {
    const { state, approval } = stateWith(c);
    const prompt = renderApprovalPrompt(state, approval);
    expect(limitViolations(prompt)).toEqual([]);
    expect(blockText(prompt)).toMatchSnapshot("prompt");
    const decision = c.options[0] ?? "approve";
    const decided = renderApprovalDecided(state, approval, {
      id: approval.id,
      kind: approval.kind,
      step: approval.step,
      decision,
      by: "U2",
      at: approval.askedAt + 2 * 60 * SECOND,
    });
    expect(limitViolations(decided)).toEqual([]);
    expect(decided.blocks.some((b) => b.type === "actions")).toBe(false);
    expect(blockText(decided)).toMatchSnapshot("decided");
  });

  it("buttons: ids, styles, confirm dialogs and values", () => {
    const { state, approval } = stateWith(CASES[2] as Case);
    const actions = renderApprovalPrompt(state, approval).blocks.find((b) => b.type === "actions");
    expect(actions).toMatchSnapshot();
    if (actions?.type !== "actions") throw new Error("no actions block");
    const byId = new Map(actions.elements.map((e) => [e.type === "button" ? e.action_id : "", e]));
    expect([...byId.keys()]).toEqual([ActionId.KeepWaiting, ActionId.ContinueAnyway, ActionId.Abort]);
    const abort = byId.get(ActionId.Abort);
    const go = byId.get(ActionId.ContinueAnyway);
    if (abort?.type !== "button" || go?.type !== "button") throw new Error("buttons missing");
    expect(abort.style).toBe("danger");
    expect(abort.confirm).toBeDefined();
    expect(go.confirm).toBeDefined();
    expect(decodeActionValue(abort.value ?? "")).toEqual({
      kind: "ok",
      value: { jobId: state.jobId, approvalId: approval.id },
    });
  });

  it("Approve is primary and needs no confirmation", () => {
    const { state, approval } = stateWith(CASES[1] as Case);
    const actions = renderApprovalPrompt(state, approval).blocks.find((b) => b.type === "actions");
    if (actions?.type !== "actions") throw new Error("no actions block");
    const approve = actions.elements[0];
    if (approve?.type !== "button") throw new Error("no button");
    expect(approve.action_id).toBe(ActionId.Approve);
    expect(approve.style).toBe("primary");
    expect(approve.confirm).toBeUndefined();
  });

  it("each decision reads as who decided what and when", () => {
    const { state, approval } = stateWith(CASES[2] as Case);
    const at = stepStart(3) + 3 * 60 * SECOND;
    const lines = (["approve", "abort", "keep-waiting", "continue"] as const).map((decision) => {
      const m = renderApprovalDecided(state, approval, { ...approval, decision, by: "U2", at });
      const last = m.blocks[m.blocks.length - 1];
      return last?.type === "section" ? last.text?.text : "";
    });
    expect(lines).toEqual([
      "✅ Approved by <@U2> at 14:16 UTC",
      "🛑 Aborted by <@U2> at 14:16 UTC",
      "⏳ Keep waiting (asked by <@U2> at 14:16 UTC)",
      "⚠️ Continued anyway by <@U2> at 14:16 UTC",
    ]);
  });

  it("bounds many long details", () => {
    const c: Case = {
      ...(CASES[3] as Case),
      details: Array.from({ length: 40 }, (_, i) => `task-${i}/0 FAILED: ${"x".repeat(2000)}`),
    };
    const { state, approval } = stateWith(c);
    const m = renderApprovalPrompt(state, approval);
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toMatch(/\n {2}\+3\d more\n/);
  });
});
