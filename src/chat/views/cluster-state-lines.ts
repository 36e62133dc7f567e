import { formatDuration } from "../../core/format-duration.js";
import type { RolloutState, StepRecord } from "../../core/rollout/rollout-state.js";
import { stepNoteText } from "../../wording/reason-text.js";
import { utcTime } from "./format.js";
import { orderReasons } from "./gate-lines.js";
import { escapeMrkdwn, MAX_LINE, truncateText } from "./limits.js";

/**
 * What state the cluster is in after (or during) a rollout: which workers run which version (or were restarted),
 * and which step was in flight. Lines of escaped mrkdwn, each bounded.
 */

const IN_FLIGHT = new Set(["restart-issued", "restarting", "waiting-back", "settling", "failed"]);
const NAMES_SHOWN = 8;

/** Where a worker stands, as a group label: a version, "restarted", "not restarted", "unknown". */
function standing(state: RolloutState, step: StepRecord): string {
  const upgrade = state.target.kind === "upgrade";
  switch (step.status) {
    case "settled":
    case "continued":
      return upgrade ? `on ${step.backVersion ?? state.target.version}` : "restarted";
    case "skipped":
      return upgrade ? `on ${state.target.version}` : "skipped (not restarted)";
    case "pending":
      return upgrade ? `on ${step.fromVersion ?? "an unknown version"}` : "not restarted";
    case "settling":
      return upgrade ? `on ${step.backVersion ?? state.target.version}` : "restarted";
    case "failed":
      if (step.backAt !== null)
        return upgrade ? `on ${step.backVersion ?? state.target.version}` : "restarted";
      return "unknown (restart failed)";
    case "restart-issued":
    case "restarting":
    case "waiting-back":
      return "unknown (restart in flight)";
  }
}

/** "connect-1, connect-2, … +3 more" (escaped). */
function nameList(names: readonly string[], shown = NAMES_SHOWN): string {
  const head = names.slice(0, shown).map(escapeMrkdwn).join(", ");
  return names.length > shown ? `${head} +${names.length - shown} more` : head;
}

/** One line per group of workers: "• 4 on 3.7.1: connect-1, connect-2, …". */
function workerGroupLines(state: RolloutState): string[] {
  const groups = new Map<string, string[]>();
  for (const step of state.steps) {
    const key = standing(state, step);
    groups.set(key, [...(groups.get(key) ?? []), step.worker]);
  }
  return [...groups.entries()].map(
    ([label, names]) => `• ${names.length} ${escapeMrkdwn(label)}: ${nameList(names)}`,
  );
}

/** The step that was in flight (restart issued, not done), if any. */
function inFlightStep(state: RolloutState): StepRecord | undefined {
  return state.steps.find((s) => IN_FLIGHT.has(s.status));
}

/** "Step 4 (connect-4) was in flight: restart issued at 14:03 UTC, back on 3.7.1, the gate had not passed: …". */
function inFlightLine(state: RolloutState, step: StepRecord): string {
  const parts: string[] = [];
  if (step.restartIssuedAt !== null) parts.push(`restart issued at ${utcTime(step.restartIssuedAt)}`);
  if (step.backAt !== null) {
    const version = escapeMrkdwn(step.backVersion ?? state.target.version);
    parts.push(
      `back on ${version} after ${formatDuration(step.backAt - (step.restartIssuedAt ?? step.backAt))}`,
    );
  } else if (step.status !== "failed") {
    parts.push("not confirmed back: check the worker");
  }
  if (step.status === "failed" && step.note !== null) {
    parts.push(`failed: ${truncateText(escapeMrkdwn(stepNoteText(step.note)), MAX_LINE)}`);
  }
  const first = orderReasons(step.gate)[0];
  if (first !== undefined) {
    const more = step.gate.length > 1 ? ` (+${step.gate.length - 1} more)` : "";
    parts.push(`the gate had not passed: ${truncateText(escapeMrkdwn(first.message), MAX_LINE)}${more}`);
  }
  return `Step ${step.step} (${escapeMrkdwn(step.worker)}) was in flight: ${parts.join(", ") || "nothing was issued yet"}`;
}

/** The cluster's state as lines: a summary for success, the full picture for an abort or failure. */
export function clusterStateLines(state: RolloutState): string[] {
  const p = state.phase;
  const total = state.steps.length;
  if (total === 0) return ["No worker was restarted."];
  const allSettled = state.steps.every((s) => s.status === "settled" || s.status === "skipped");
  if (p.kind === "finished" && p.result === "succeeded" && allSettled) {
    return state.target.kind === "upgrade"
      ? [`All ${total} workers run ${escapeMrkdwn(state.target.version)}; every step passed the settle gate.`]
      : [`All ${total} workers were restarted; every step passed the settle gate.`];
  }
  const lines = workerGroupLines(state);
  const flying = inFlightStep(state);
  if (flying !== undefined) lines.push(inFlightLine(state, flying));
  const continued = state.steps.filter((s) => s.status === "continued").map((s) => s.worker);
  if (continued.length > 0) lines.push(`Continued without a passed gate: ${nameList(continued)}`);
  if (p.kind === "finished" && p.result !== "succeeded" && flying === undefined) {
    const next = state.steps.find((s) => s.status === "pending");
    lines.push(
      next
        ? `No step was in flight; the next would have been ${escapeMrkdwn(next.worker)}.`
        : "No step was in flight.",
    );
  }
  return lines;
}
