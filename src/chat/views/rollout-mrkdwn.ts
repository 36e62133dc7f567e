import { formatDuration } from "../../core/format-duration.js";
import { plural } from "../../core/plural.js";
import type { ApprovalKind } from "../../core/rollout/approval-types.js";
import type { RolloutState, StepRecord } from "../../core/rollout/rollout-state.js";
import type { DisruptionTotals } from "../../core/rollout/summarize.js";
import type { GateReason } from "../../core/settle/settle-types.js";
import { finishReasonText } from "../../wording/reason-text.js";
import { taskSecondsText } from "../../wording/task-time-text.js";
import { mention } from "./format.js";
import { orderReasons } from "./gate-lines.js";
import { escapeMrkdwn, MAX_LINE, truncateText } from "./limits.js";

/**
 * The rollout's pieces of Slack mrkdwn shared by the parent, step replies, prompts and the report (escaped unless
 * noted). The words Slack shares with the terminal are in src/wording/.
 */

const APPROVAL_LABELS: Readonly<Record<ApprovalKind, string>> = {
  "blocking-findings": "blocking findings",
  "eager-window": "eager window",
  "slow-gate": "slow settle gate",
  "worker-not-back": "worker not back",
  "gate-failed": "settle gate failed",
  "config-changed": "connector config changed",
  "restart-failed": "restart failed",
  "restart-unconfirmed": "restart unconfirmed",
  "task-restart": "exactly-once tasks failed fencing",
  "recently-started": "workers started recently",
  canary: "canary soak failed",
};

export function approvalLabel(kind: ApprovalKind): string {
  return APPROVAL_LABELS[kind];
}

/** The versions the workers ran before, e.g. "3.6.1" or "3.6.0/3.6.1" (plain, unescaped). */
function fromVersions(state: RolloutState): string {
  const versions = [...new Set(state.steps.map((s) => s.fromVersion).filter((v): v is string => v !== null))];
  return versions.length === 0 ? "?" : versions.sort().join("/");
}

/** "prod-cluster 3.6.1 → 3.7.1" or "prod-cluster rolling restart" (plain, unescaped). */
export function rolloutSubject(state: RolloutState): string {
  if (state.target.kind === "restart") return `${state.cluster} rolling restart`;
  const from = fromVersions(state);
  return from === "?"
    ? `${state.cluster} → ${state.target.version}`
    : `${state.cluster} ${from} → ${state.target.version}`;
}

/** "3 tasks moved · downtime 298 task-seconds". */
export function disruptionText(t: DisruptionTotals): string {
  return `${plural(t.tasksMoved, "task")} moved · downtime ${taskSecondsText(t.taskDowntimeMs)}`;
}

/** The step the phase is about, if any. */
function phaseStep(state: RolloutState): StepRecord | undefined {
  const p = state.phase;
  const n = "step" in p ? p.step : p.kind === "awaiting-approval" ? p.approval.step : null;
  return n === null ? undefined : state.steps.find((s) => s.step === n);
}

/** "connect-2 (step 3/6)", escaped. */
function stepName(state: RolloutState, step: StepRecord): string {
  return `${escapeMrkdwn(step.worker)} (step ${step.step}/${state.steps.length})`;
}

/** The version the step restarts the worker into, escaped. */
export function targetOf(state: RolloutState, step: StepRecord): string {
  return escapeMrkdwn(
    state.target.kind === "upgrade" ? state.target.version : (step.fromVersion ?? "its version"),
  );
}

/** Time left of the scheduled delay for a held reason: from the settling baseline when known, else the reason. */
function heldRemainingMs(
  state: RolloutState,
  reason: Extract<GateReason, { code: "held-by-scheduled-delay" }>,
  now: number,
): number | null {
  const p = state.phase;
  if (p.kind === "settling" && p.baseline.delayDeadline !== null)
    return Math.max(0, p.baseline.delayDeadline - now);
  if (reason.remainingMs === null) return null;
  return Math.max(0, reason.remainingMs - Math.max(0, now - state.updatedAt));
}

/** "waiting: 14 tasks held by the scheduled delay, 2m10s left" or the most important reason. */
function waitingText(state: RolloutState, step: StepRecord, now: number): string {
  const first = orderReasons(step.gate)[0];
  if (first === undefined) return `waiting for the cluster to settle after ${stepName(state, step)}`;
  if (first.code === "held-by-scheduled-delay") {
    const left = heldRemainingMs(state, first, now);
    const when = left === null ? "" : left > 0 ? `, ${formatDuration(left)} left` : ", deadline passed";
    return `waiting: ${plural(first.heldTasks.length, "task")} held by the scheduled delay${when}`;
  }
  const others = step.gate.length > 1 ? ` (+${step.gate.length - 1} more)` : "";
  return `waiting: ${truncateText(escapeMrkdwn(first.message), MAX_LINE)}${others}`;
}

/** What is happening now, for the parent: "restarting connect-2 (step 3/6)", "awaiting approval: eager window". */
export function currentText(state: RolloutState, now: number): string | null {
  const p = state.phase;
  const step = phaseStep(state);
  switch (p.kind) {
    case "planning":
      return "planning: reading the cluster";
    case "finished":
      return null;
    case "awaiting-approval":
      return `awaiting approval: ${approvalLabel(p.approval.kind)}${step ? ` · ${stepName(state, step)}` : ""}`;
    case "paused":
      return step ? `paused before ${stepName(state, step)}` : "paused";
    case "before-step":
      return step ? `next: ${stepName(state, step)}` : "finishing";
    case "restarting":
      return step ? `restarting ${stepName(state, step)}` : "restarting";
    case "verifying-restart":
      return step
        ? `confirming the restart of ${stepName(state, step)} after a takeover`
        : "confirming a restart";
    case "waiting-back":
      return step
        ? `restarting ${stepName(state, step)}: waiting for it to come back on ${targetOf(state, step)} (${formatDuration(now - p.since)})`
        : "waiting for a worker to come back";
    case "settling":
      return step ? `${waitingText(state, step, now)} · ${stepName(state, step)}` : "settling";
  }
}

/** "running", "paused by <@U1>", "awaiting approval", "succeeded", "aborted: …", "failed: …" (reason optional). */
export function stateText(state: RolloutState, withReason = true): string {
  const p = state.phase;
  const control = state.pendingControl;
  const pending =
    control === null
      ? ""
      : ` (${control.action} requested by ${mention(control.by)}: applies before the next restart)`;
  switch (p.kind) {
    case "paused":
      return `⏸️ paused by ${mention(p.by)}`;
    case "awaiting-approval":
      return `🙋 awaiting approval${pending}`;
    case "finished": {
      const text = withReason ? finishReasonText(p.reason) : "";
      const reason = text.length > 0 ? `: ${truncateText(escapeMrkdwn(text), 1000)}` : "";
      if (p.result === "succeeded") return "✅ succeeded";
      return p.result === "aborted" ? `🛑 aborted${reason}` : `❌ failed${reason}`;
    }
    case "planning":
      return "📝 planning";
    default:
      return `🔄 running${pending}`;
  }
}
