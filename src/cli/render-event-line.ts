import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type { RolloutEvent } from "../core/rollout/rollout-io.js";
import { approvalDetails, approvalPrompt } from "../wording/approval-text.js";
import { canaryPassedText, canarySoakingText } from "../wording/canary-text.js";
import { dataFlowUnseenText, lagLines, stepDataFlowText } from "../wording/data-flow-text.js";
import { stepExactlyOnceText } from "../wording/exactly-once-text.js";
import { finishReasonText, reorderReasonText, skipReasonText } from "../wording/reason-text.js";
import { restartLearnedText } from "../wording/restart-learned-text.js";
import { taskSecondsText } from "../wording/task-time-text.js";

/** How far the lines of a multi-line detail (an executor's output, an approval's details) sit under their line. */
const DETAIL_INDENT = "    ";

/** One line of `connect-roll run` output per event (the Slack thread, as text). null = nothing worth a line. */
export function renderEventLine(event: RolloutEvent, lastGate: Map<number, string>): string | null {
  switch (event.kind) {
    case "rollout-planned": {
      const p = event.plan;
      const order = p.steps.map((s) => `${s.worker}${s.isLeader ? " (leader)" : ""}`).join(" → ");
      const eager =
        p.eagerWindows.length > 0
          ? `; ${p.eagerWindows.length === 1 ? "eager window" : "eager windows"}: ${p.eagerWindows.map(windowSteps).join(", ")}`
          : "";
      const flow =
        p.dataFlow.kind === "visible"
          ? `; data flow: ${plural(p.dataFlow.flowing, "task")} flowing, ${p.dataFlow.idle.length} idle`
          : "";
      return `plan: ${plural(p.steps.length, "step")}: ${order}${eager}${flow}`;
    }
    case "data-flow-unseen":
      return dataFlowUnseenText(event.workers);
    case "step-started":
      return `step ${event.step}: restarting ${event.worker}`;
    case "restart-issued":
      return `step ${event.step}: ${event.worker}: ${indentDetail(event.detail, DETAIL_INDENT)}`;
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
      return `step ${event.step}: ${event.worker} settled in ${formatDuration(m.settleMs ?? 0)}, ${plural(m.tasksMoved, "task")} moved, downtime ${taskSecondsText(m.taskDowntimeMs)}${flow.map((f) => `; ${f}`).join("")}`;
    }
    case "step-skipped":
      return `step ${event.step}: ${event.worker} skipped: ${skipReasonText(event.reason)}`;
    case "step-reordered":
      return `step ${event.step}: ${event.worker} moved ${event.reason.kind === "leader-first" ? "forward" : "to the end"}: ${reorderReasonText(event.reason)}`;
    case "canary-soaking":
      return `step ${event.step}: ${canarySoakingText(event.worker, event.soakMs)}`;
    case "canary-passed":
      return `step ${event.step}: ${canaryPassedText(event.worker, event.figures)}`;
    case "approval-requested":
      return `approval needed (${event.approval.kind}): ${approvalPrompt(event.approval)}${approvalDetails(
        event.approval,
      )
        .map((d) => `\n${DETAIL_INDENT}${indentDetail(d, `${DETAIL_INDENT}  `)}`)
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

/** "steps 2–4", or "step 3" for a window of one step. */
function windowSteps(w: { readonly fromStep: number; readonly toStep: number }): string {
  return w.fromStep === w.toStep ? `step ${w.fromStep}` : `steps ${w.fromStep}–${w.toStep}`;
}

/** A multi-line text with each line after the first indented by `indent`, so it reads as part of the line above. */
function indentDetail(text: string, indent: string): string {
  return text
    .trimEnd()
    .split("\n")
    .map((line, i) => (i === 0 || line === "" ? line : `${indent}${line}`))
    .join("\n");
}
