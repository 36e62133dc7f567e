import { describe, expect, it } from "vitest";
import { ActionId, decodeActionValue } from "../../../src/chat/action-ids.js";
import { DECISION_OF_ACTION } from "../../../src/chat/listeners/actions/approval-decision.js";
import { renderApprovalDecided, renderApprovalPrompt } from "../../../src/chat/views/render-approval.js";
import {
  type ApprovalFacts,
  approvalKindOf,
  type Decision,
  type PendingApproval,
} from "../../../src/core/rollout/approval-types.js";
import type { RolloutState } from "../../../src/core/rollout/rollout-state.js";
import type { GateReason } from "../../../src/core/settle/settle-types.js";
import { blockText, limitViolations } from "./block-text.js";
import { aRollout, heldReason, SECOND, stepStart } from "./rollout-state-builder.js";

interface Case {
  facts: ApprovalFacts;
  step: number | null;
  options: Decision[];
}

const slower: GateReason = {
  code: "gate-slow",
  overdueMs: 72_000,
  message: "settling is 1m12s slower than expected",
};
const heldPastDeadline: GateReason = {
  ...heldReason("connect-3", 14, 0),
  message: heldReason("connect-3", 14, 0).message.replace("0m00s left", "deadline passed 1m00s ago"),
};
const taskFailed = (task: string, trace: string): GateReason => ({
  code: "task-failed",
  task,
  trace: null,
  message: `${task} FAILED: ${trace}`,
});

/** One prompt of each kind, by its facts (approval-text.test.ts: their words, every variant). */
const CASES: Case[] = [
  {
    facts: {
      kind: "blocking-findings",
      cluster: "prod-cluster",
      findings: [
        { severity: "block", code: "failed-tasks", message: "orders-sink/3 is FAILED before the start" },
        { severity: "warn", code: "delay-short", message: "the delay (10s) is shorter than a restart" },
      ],
    },
    step: null,
    options: ["approve", "abort"],
  },
  {
    facts: { kind: "eager-window", cluster: "prod-cluster", worker: "connect-1" },
    step: 1,
    options: ["approve", "abort"],
  },
  {
    facts: {
      kind: "gate-slow",
      worker: "connect-3",
      elapsedMs: 492_000,
      reasons: [heldPastDeadline, slower],
    },
    step: 3,
    options: ["keep-waiting", "continue", "abort"],
  },
  {
    facts: {
      kind: "gate-failed",
      worker: "connect-3",
      reasons: [taskFailed("orders-sink/2", "org.apache.kafka.connect.errors.ConnectException: boom")],
    },
    step: 3,
    options: ["continue", "abort"],
  },
  {
    facts: {
      kind: "config-changed",
      cluster: "prod-cluster",
      changes: [{ kind: "task-count", connector: "orders-sink", before: 4, after: 6 }],
    },
    step: 3,
    options: ["approve", "abort"],
  },
  {
    facts: { kind: "restart-failed", worker: "connect-3", error: "webhook answered 500", mayHaveRun: true },
    step: 3,
    options: ["approve", "abort"],
  },
  {
    facts: { kind: "restart-unconfirmed", worker: "connect-3", seen: { reachable: true, version: "3.6.1" } },
    step: 3,
    options: ["approve", "abort"],
  },
];

function stateWith(c: Case): { state: RolloutState; approval: PendingApproval } {
  const state = aRollout()
    .settledThrough(c.step === null ? 0 : c.step - 1)
    .awaiting(c.facts, { step: c.step, options: c.options })
    .build();
  if (state.phase.kind !== "awaiting-approval") throw new Error("not awaiting");
  return { state, approval: state.phase.approval };
}

describe("renderApprovalPrompt", () => {
  it.each(CASES.map((c) => ({ ...c, kind: approvalKindOf(c.facts) })))(
    "$kind prompt and its decided form",
    (c) => {
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
    },
  );

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
      facts: {
        kind: "gate-failed",
        worker: "connect-3",
        reasons: Array.from({ length: 40 }, (_, i) => taskFailed(`task-${i}/0`, "x".repeat(2000))),
      },
    };
    const { state, approval } = stateWith(c);
    const m = renderApprovalPrompt(state, approval);
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toMatch(/\n {2}\+3\d more\n/);
  });
});

describe("the prompt about workers started long after the rest", () => {
  const asked: PendingApproval = {
    id: "job-1:a1",
    kind: "recently-started",
    step: null,
    options: ["continue", "approve", "abort"],
    askedAt: stepStart(1),
    facts: {
      kind: "recently-started",
      cluster: "prod-cluster",
      workers: [{ worker: "connect-1", startedAt: stepStart(1) - 40 * SECOND }],
      othersStartedAt: stepStart(1) - 3 * 86_400 * SECOND,
      now: stepStart(1),
    },
  };

  it("offers 'Skip them' first, 'Restart them too' behind a confirmation, and Abort", () => {
    const message = renderApprovalPrompt(aRollout().build(), asked);
    const actions = message.blocks?.find((b) => b.type === "actions") as
      | { elements: { action_id: string; text: { text: string }; confirm?: unknown }[] }
      | undefined;
    expect(actions?.elements.map((e) => [e.action_id, e.text.text])).toEqual([
      [ActionId.ContinueAnyway, "Skip them (count as restarted)"],
      [ActionId.Approve, "Restart them too"],
      [ActionId.Abort, "Abort"],
    ]);
    expect(actions?.elements[1]?.confirm).toBeDefined();
    expect(blockText(message)).toContain(
      "connect-1 started 40s ago, the others 3d00h ago: an interrupted rollout?",
    );
  });

  it("a skip reads 'Counted as restarted', not 'Continued anyway'", () => {
    const record = {
      id: asked.id,
      kind: asked.kind,
      step: null,
      decision: "continue" as const,
      by: "U2",
      at: stepStart(1),
    };
    const text = blockText(renderApprovalDecided(aRollout().build(), asked, record));
    expect(text).toContain("Counted as restarted by <@U2>");
    expect(text).not.toContain("Continued anyway");
  });
});

describe("the prompt about a worker not back within gate.workerReturnMs", () => {
  const c: Case = {
    facts: {
      kind: "worker-not-back",
      worker: "connect-3",
      targetVersion: "3.7.1",
      waitedMs: 300 * SECOND,
      seen: { reachable: false, error: "connection refused" },
      attempts: 1,
    },
    step: 3,
    options: ["restart-again", "continue-without", "keep-waiting", "abort"],
  };

  it("offers Restart it again, Continue without it, Keep waiting and Abort, each deciding what it says", () => {
    const { state, approval } = stateWith(c);
    const message = renderApprovalPrompt(state, approval);
    expect(limitViolations(message)).toEqual([]);
    expect(blockText(message)).toContain(
      "connect-3 has not come back on 3.7.1 after 5m00s. Restart it again, continue without it, or abort?",
    );
    const actions = message.blocks.find((b) => b.type === "actions");
    if (actions?.type !== "actions") throw new Error("no actions block");
    const buttons = actions.elements.flatMap((e) => (e.type === "button" ? [e] : []));
    expect(buttons.map((b) => [b.action_id, b.text.text])).toEqual([
      [ActionId.RestartAgain, "Restart it again"],
      [ActionId.ContinueWithout, "Continue without it"],
      [ActionId.KeepWaiting, "Keep waiting"],
      [ActionId.Abort, "Abort"],
    ]);
    expect(buttons.map((b) => DECISION_OF_ACTION[b.action_id as ActionId])).toEqual(c.options);
    // The two that act on the worker (a second restart, one worker fewer) and abort ask to confirm.
    expect(buttons.map((b) => b.confirm !== undefined)).toEqual([true, true, false, true]);
    expect(buttons[1]?.confirm?.text.text).toContain("the final report says it was not brought back");
    for (const b of buttons)
      expect(decodeActionValue(b.value ?? "")).toEqual({
        kind: "ok",
        value: { jobId: state.jobId, approvalId: approval.id },
      });
  });

  it("the decided prompt says who restarted it again or continued without it", () => {
    const { state, approval } = stateWith(c);
    const at = stepStart(3) + 6 * 60 * SECOND;
    const lines = (["restart-again", "continue-without"] as const).map((decision) => {
      const m = renderApprovalDecided(state, approval, { ...approval, decision, by: "U2", at });
      expect(m.blocks.some((b) => b.type === "actions")).toBe(false);
      const last = m.blocks[m.blocks.length - 1];
      return last?.type === "section" ? last.text?.text : "";
    });
    expect(lines).toEqual([
      "🔁 Restarted again by <@U2> at 14:19 UTC",
      "⏭️ Continued without it by <@U2> at 14:19 UTC",
    ]);
  });
});

describe("the prompt about a canary that did worse than the old workers", () => {
  const c: Case = {
    facts: {
      kind: "canary",
      worker: "connect-1",
      version: "3.7.1",
      from: "3.6.1",
      findings: [{ metric: "record-rate", canary: 2, others: 20, ratio: 0.1, minRatio: 0.5 }],
      figures: {
        soakMs: 300 * SECOND,
        canaryTasks: 4,
        otherTasks: 8,
        canaryRate: 2,
        otherRate: 20,
        rateRatio: 0.1,
        canaryFailures: 0,
        otherFailures: 0,
      },
    },
    step: 2,
    options: ["rollback", "continue", "abort"],
  };

  it("names the metric and both values, and offers Roll back this worker (confirmed), Continue and Abort", () => {
    const { state, approval } = stateWith(c);
    const message = renderApprovalPrompt(state, approval);
    expect(limitViolations(message)).toEqual([]);
    expect(blockText(message)).toContain(
      "The canary connect-1 did worse on 3.7.1 than the workers still on 3.6.1: record rate 2.0/s per task vs 20.0/s on the old workers (0.10× the same connectors', below 0.50×). Roll it back to 3.6.1, continue, or abort?",
    );
    expect(blockText(message)).toContain(
      "over 5m00s, 4 tasks on it at 2.0/s per task vs 20.0/s on 8 old (0.10×)",
    );
    const actions = message.blocks.find((b) => b.type === "actions");
    if (actions?.type !== "actions") throw new Error("no actions block");
    const buttons = actions.elements.flatMap((e) => (e.type === "button" ? [e] : []));
    expect(buttons.map((b) => [b.action_id, b.text.text])).toEqual([
      [ActionId.RollBack, "Roll back this worker"],
      [ActionId.ContinueAnyway, "Continue anyway"],
      [ActionId.Abort, "Abort"],
    ]);
    expect(buttons.map((b) => DECISION_OF_ACTION[b.action_id as ActionId])).toEqual(c.options);
    expect(buttons[0]?.confirm?.text.text).toContain(
      "no other worker is restarted and the rollout ends failed",
    );
  });

  it("the decided prompt says who rolled it back", () => {
    const { state, approval } = stateWith(c);
    const m = renderApprovalDecided(state, approval, {
      ...approval,
      decision: "rollback",
      by: "U2",
      at: stepStart(2),
    });
    const last = m.blocks[m.blocks.length - 1];
    expect(last?.type === "section" ? last.text?.text : "").toMatch(
      /^↩️ Rolled back by <@U2> at \d\d:\d\d UTC$/,
    );
  });
});
