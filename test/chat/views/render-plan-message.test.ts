import { describe, expect, it } from "vitest";
import { renderPlanMessage } from "../../../src/chat/views/render-plan-message.js";
import type { Plan } from "../../../src/core/plan/plan-types.js";
import { blockText, limitViolations } from "./block-text.js";
import { aRollout } from "./rollout-state-builder.js";

function planOf(workers: number, patch: Partial<Plan> = {}): Plan {
  const plan = aRollout({ workers }).build().plan;
  if (plan === null) throw new Error("no plan");
  return { ...plan, ...patch };
}

describe("renderPlanMessage", () => {
  it("order with reasons, leader, protocols, eager windows, predictions and findings by severity", () => {
    const base = planOf(4);
    const plan: Plan = {
      ...base,
      steps: base.steps.map((s) =>
        s.step === 1
          ? {
              ...s,
              fromVersion: "2.2.0",
              protocolBefore: "eager",
              protocolDuring: "eager",
              protocolAfter: "eager",
              disruption: "eager",
              reasons: ["runs 2.2.0: only speaks eager"],
            }
          : s,
      ),
      eagerWindows: [{ fromStep: 1, toStep: 1 }],
      skipped: [{ worker: "connect-9", reason: "already runs 3.7.1" }],
      findings: [
        {
          severity: "info",
          code: "delay-declared",
          message: "scheduled.rebalance.max.delay.ms is 300000 (declared)",
        },
        { severity: "block", code: "failed-tasks", message: "orders-sink/3 is FAILED before the start" },
        {
          severity: "warn",
          code: "unknown-protocol",
          message: "the protocol support of 2.2.0-custom is unknown: assuming eager",
        },
      ],
      needsApproval: true,
      notes: ["pace window would save 12m"],
    };
    const m = renderPlanMessage(plan);
    expect(limitViolations(m)).toEqual([]);
    const text = blockText(m);
    expect(text.indexOf("🛑 Blocking")).toBeLessThan(text.indexOf("⚠️ Warnings"));
    expect(text.indexOf("⚠️ Warnings")).toBeLessThan(text.indexOf("ℹ️ Info"));
    expect(text).toMatchSnapshot();
  });

  it("a 60-worker plan stays within the limits", () => {
    const m = renderPlanMessage(planOf(60));
    expect(limitViolations(m)).toEqual([]);
    expect(blockText(m)).toContain("60. connect-60");
  });
});
