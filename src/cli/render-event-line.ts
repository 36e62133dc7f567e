import { formatDuration } from "../core/format-duration.js";
import type { RolloutEvent } from "../core/rollout/rollout-io.js";
import { approvalDetails, approvalPrompt } from "../wording/approval-text.js";
import { dataFlowUnseenText, lagLines, stepDataFlowText } from "../wording/data-flow-text.js";
import { stepExactlyOnceText } from "../wording/exactly-once-text.js";
import { finishReasonText, reorderReasonText, skipReasonText } from "../wording/reason-text.js";
import { restartLearnedText } from "../wording/restart-learned-text.js";

/** One line of `connect-roll run` output per event (the Slack thread, as text). null = nothing worth a line. */
export function renderEventLine(event: RolloutEvent, lastGate: Map<number, string>): string | null {
  switch (event.kind) {
    case "rollout-planned": {
      const p = event.plan;
      const order = p.steps.map((s) => `${s.worker}${s.isLeader ? " (leader)" : ""}`).join(" → ");
      const eager =
        p.eagerWindows.length > 0
          ? `; eager window(s): ${p.eagerWindows.map((w) => `steps ${w.fromStep}–${w.toStep}`).join(", ")}`
          : "";
      const flow =
        p.dataFlow.kind === "visible"
          ? `; data flow: ${p.dataFlow.flowing} tasks flowing, ${p.dataFlow.idle.length} idle`
          : "";
      return `plan: ${p.steps.length} step(s): ${order}${eager}${flow}`;
    }
    case "data-flow-unseen":
      return dataFlowUnseenText(event.workers);
    case "step-started":
      return `step ${event.step}: restarting ${event.worker}`;
    case "restart-issued":
      return `step ${event.step}: ${event.worker}: ${event.detail}`;
    case "restart-learned":
      return `step ${event.step}: ${restartLearnedText(event)}`;
    case "worker-back":
      return `step ${event.step}: ${event.worker} back${event.version ? ` on ${event.version}` : ""} after ${formatDuration(event.restartMs)}`;
    case "gate-waiting": {
      const codes = event.reasons.map((r) => r.code).join(",");
      if (lastGate.get(event.step) === codes) return null;
      lastGate.set(event.step, codes);
      return `step ${event.step}: waiting: ${event.reasons.map((r) => r.message).join("; ")}`;
    }
    case "step-settled": {
      const m = event.measurements;
      const flow = [
        stepDataFlowText(event.worker, event.dataFlow),
        ...lagLines(event.dataFlow),
        stepExactlyOnceText(event.worker, event.exactlyOnce),
      ].filter((x): x is string => x !== null);
      return `step ${event.step}: ${event.worker} settled in ${formatDuration(m.settleMs ?? 0)}, ${m.tasksMoved} task(s) moved, task downtime ${formatDuration(m.taskDowntimeMs)}·task${flow.map((f) => `; ${f}`).join("")}`;
    }
    case "step-skipped":
      return `step ${event.step}: ${event.worker} skipped: ${skipReasonText(event.reason)}`;
    case "step-reordered":
      return `step ${event.step}: ${event.worker} moved to the end: ${reorderReasonText(event.reason)}`;
    case "approval-requested":
      return `approval needed (${event.approval.kind}): ${approvalPrompt(event.approval)}${approvalDetails(
        event.approval,
      )
        .map((d) => `\n    ${d}`)
        .join("")}`;
    case "approval-decided":
      return `approval ${event.approval.kind}: ${event.approval.decision} by ${event.approval.by}`;
    case "rollout-paused":
      return `paused by ${event.by} before step ${event.step}`;
    case "rollout-resumed":
      return `resumed by ${event.by} at step ${event.step}`;
    case "rollout-taken-over":
      return `resumed an interrupted rollout (owner ${event.owner})`;
    case "rollout-finished":
      return `${event.result}: ${finishReasonText(event.reason)}`;
    case "store-unreachable":
      return `paused: Redis unreachable since ${new Date(event.since).toISOString()} (${event.error}); retrying while the lease lasts`;
    case "rollout-interrupted":
      return `stopped (${event.why}): ${event.detail}; no further restart from this run`;
    case "store-recovered":
      return `resumed: Redis answers again after ${formatDuration(event.downMs)}`;
  }
}
