import type { RolloutEvent, Transition } from "../../core/rollout/rollout-io.js";
import type { RunContext } from "./run-context.js";
import type { AuditWording } from "./runner-deps.js";

/** What of a transition's events the observers get, and which become lines of the job's audit trail. */

const AUDITED: ReadonlySet<RolloutEvent["kind"]> = new Set([
  "restart-issued",
  "step-settled",
  "step-skipped",
  "approval-decided",
  "rollout-paused",
  "rollout-resumed",
  "rollout-finished",
]);

function auditLine(
  event: RolloutEvent,
  wording: AuditWording,
): { action: string; detail: string; actor: string | null } {
  switch (event.kind) {
    case "restart-issued":
      return {
        action: "restart-issued",
        detail: `step ${event.step}: ${event.worker}: ${event.detail}`,
        actor: null,
      };
    case "step-settled":
      return { action: "step-settled", detail: `step ${event.step}: ${event.worker}`, actor: null };
    case "step-skipped":
      return {
        action: "step-skipped",
        detail: `step ${event.step}: ${event.worker}: ${wording.skipReason(event.reason)}`,
        actor: null,
      };
    case "approval-decided":
      return {
        action: event.approval.decision === "abort" ? "aborted" : "approved",
        detail: `${event.approval.kind}: ${event.approval.decision}`,
        actor: event.approval.by,
      };
    case "rollout-paused":
      return { action: "paused", detail: `before step ${event.step}`, actor: event.by };
    case "rollout-resumed":
      return { action: "resumed", detail: `at step ${event.step}`, actor: event.by };
    case "rollout-finished":
      return { action: event.result, detail: wording.finishReason(event.reason), actor: null };
    default:
      return { action: event.kind, detail: "", actor: null };
  }
}

/** Hands the transition's events to the observers and appends the audited ones (a failed append is logged). */
export async function publish(ctx: RunContext, t: Transition): Promise<void> {
  for (const effect of t.effects) {
    if (effect.kind !== "emit") continue;
    try {
      ctx.deps.onEvent?.(effect.event, t.state);
    } catch (err) {
      ctx.log.warn({ err }, "event observer failed");
    }
    if (AUDITED.has(effect.event.kind)) {
      const line = auditLine(effect.event, ctx.deps.wording);
      await ctx.deps.store
        .appendAudit(ctx.record.id, {
          at: t.state.updatedAt,
          actor: line.actor ?? `bot:${ctx.lease.owner}`,
          action: line.action,
          detail: line.detail,
        })
        .catch((err: unknown) => ctx.log.warn({ err }, "audit append failed"));
    }
  }
}
