import { formatDuration } from "../core/format-duration.js";
import type { RolloutState } from "../core/rollout/rollout-state.js";
import { isStepDone, type PlanVsReality } from "../core/rollout/summarize.js";
import { taskSecondsText } from "./task-time-text.js";

/**
 * The words for a rollout's summary (core/rollout/summarize.ts): the plan next to reality, and where the cluster
 * stands. Plain text, for the terminal's summary line and `run --json`'s summary, and the Slack report.
 */

/**
 * "moves 2 (plan 2) · longest data gap 23s (plan 25s) · wall 1m45s (plan 3m40s) · interruptions planned 0": the
 * plan's predictions next to what the rollout measured, for the terminal and the Slack report alike. The plan's
 * per-task downtime is set against the data-flow gaps the metrics measured, or (without them) the status estimate.
 */
export function planVsRealityText(p: PlanVsReality): string {
  return [
    `moves ${p.tasksMoved.real} (plan ${p.tasksMoved.predicted})`,
    p.dataFlowGapMs === null
      ? `downtime ${taskSecondsText(p.taskDowntimeMs.real)} (plan ${taskSecondsText(p.taskDowntimeMs.predicted)})`
      : `longest data gap ${formatDuration(p.dataFlowGapMs.real)} (plan ${formatDuration(p.dataFlowGapMs.predicted)})`,
    `wall ${formatDuration(p.wallMs.real)} (plan ${formatDuration(p.wallMs.predicted)})`,
    `interruptions planned ${p.interruptions.predicted}`,
  ].join(" · ");
}

/**
 * Where every worker stands, in one sentence (the terminal's summary line and `run --json`'s `clusterState`):
 * "worker-1 restarted on 3.7.1; worker-2 in flight (settling): <first gate reason>; worker-3 not restarted.".
 */
export function clusterStateSentence(state: RolloutState): string {
  const upgrade = state.target.kind === "upgrade";
  const restarted = state.steps
    .filter((s) => s.status === "settled" || s.status === "continued")
    .map((s) => s.worker);
  const inFlight = state.steps.find((s) => !isStepDone(s) && s.status !== "pending");
  const pending = state.steps.filter((s) => s.status === "pending").map((s) => s.worker);
  const parts: string[] = [];
  if (restarted.length > 0)
    parts.push(`${restarted.join(", ")} restarted${upgrade ? ` on ${state.target.version}` : ""}`);
  if (inFlight) {
    const how = inFlight.status === "failed" ? "failed" : `in flight (${inFlight.status})`;
    const first = inFlight.gate[0];
    parts.push(`${inFlight.worker} ${how}${first === undefined ? "" : `: ${first.message}`}`);
  }
  if (pending.length > 0) parts.push(`${pending.join(", ")} not restarted`);
  return parts.length > 0 ? `${parts.join("; ")}.` : "no worker was restarted.";
}
