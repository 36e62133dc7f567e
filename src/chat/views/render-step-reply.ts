import type { KnownBlock } from "@slack/types";
import { formatDuration } from "../../core/format-duration.js";
import { plural } from "../../core/plural.js";
import type { RolloutState, StepRecord } from "../../core/rollout/rollout-state.js";
import { lagLines, stepDataFlowText } from "../../wording/data-flow-text.js";
import { stepNoteText } from "../../wording/reason-text.js";
import { taskSecondsText } from "../../wording/task-time-text.js";
import { context, message, section, type ViewMessage } from "./blocks.js";
import { mention, utcTime } from "./format.js";
import { gateLines } from "./gate-lines.js";
import { escapeMrkdwn, MAX_LINE, truncateText } from "./limits.js";
import { targetOf } from "./rollout-mrkdwn.js";

/** Longest note (a restart failure, a skip reason) shown in a step reply. */
const MAX_NOTE = 1000;

/**
 * One thread reply per worker step, updated as it moves: pending → restarting → waiting to come back →
 * waiting for the gate (its reasons, most important first) → settled / skipped / continued anyway / failed.
 */
export function renderStepReply(state: RolloutState, step: StepRecord, now: number): ViewMessage {
  const title = `*Step ${step.step}/${state.steps.length} · ${escapeMrkdwn(step.worker)}*${step.isLeader ? " · 👑 group leader (restarted last)" : ""}`;
  const lines = statusLines(state, step, now);
  const blocks: KnownBlock[] = [section([title, ...lines].join("\n"))];
  const gate = gateSection(step);
  if (gate !== null) blocks.push(gate);
  blocks.push(context(...contextTexts(step)));
  const fallback = `Step ${step.step}/${state.steps.length} ${escapeMrkdwn(step.worker)}: ${summary(state, step)}`;
  return message(fallback, blocks);
}

function statusLines(state: RolloutState, step: StepRecord, now: number): string[] {
  const restart = restartLine(step);
  const back = backLine(state, step);
  switch (step.status) {
    case "pending":
      return ["⚪ pending"];
    case "restart-issued":
    case "restarting":
      return [restart ?? `🔄 restarting${attempt(step)}`];
    case "waiting-back": {
      const since =
        step.restartIssuedAt === null ? "" : ` (${formatDuration(now - step.restartIssuedAt)} so far)`;
      return [
        restart ?? `🔄 restarting${attempt(step)}`,
        `⏳ waiting for it to come back on ${targetOf(state, step)}${since}`,
      ];
    }
    case "settling": {
      const since = step.backAt === null ? "" : ` (${formatDuration(now - step.backAt)} so far)`;
      return [restart, back, `⏳ waiting for the cluster to settle${since}:`].filter(isLine);
    }
    case "settled":
      return [restart, back, `✅ ${settledText(step)}`, ...dataFlowLines(step)].filter(isLine);
    case "skipped":
      return [`⏭️ skipped${noteText(step)}`];
    case "continued":
      return [restart, back, `⚠️ ${continuedText(state, step)}`, ...dataFlowLines(step)].filter(isLine);
    case "failed":
      return [restart, back, `❌ failed${noteText(step)}`, ...dataFlowLines(step)].filter(isLine);
  }
}

/** "📉 data stopped 21s for connect-3's 8 tasks; longest 23s, orders-source/4" and a sink's growing lag. */
function dataFlowLines(step: StepRecord): string[] {
  const gaps = stepDataFlowText(step.worker, step.dataFlow);
  return [
    ...(gaps === null ? [] : [`📉 ${escapeMrkdwn(gaps)}`]),
    ...lagLines(step.dataFlow).map((l) => `🐢 ${escapeMrkdwn(l)}`),
  ];
}

function isLine(line: string | null): line is string {
  return line !== null;
}

function attempt(step: StepRecord): string {
  return step.attempts > 1 ? ` (attempt ${step.attempts})` : "";
}

function restartLine(step: StepRecord): string | null {
  if (step.restartDetail === null) return null;
  return `🔄 restart issued${attempt(step)}: ${truncateText(escapeMrkdwn(step.restartDetail), MAX_LINE)}`;
}

function backLine(state: RolloutState, step: StepRecord): string | null {
  if (step.backAt === null) return null;
  const version = step.backVersion === null ? targetOf(state, step) : escapeMrkdwn(step.backVersion);
  const after =
    step.measurements.restartMs === null ? "" : ` after ${formatDuration(step.measurements.restartMs)}`;
  return `✔️ back on ${version}${after}`;
}

/** "settled in 5m02s, 0 tasks moved, downtime 298 task-seconds" (time from the restart to the passed gate). */
function settledText(step: StepRecord): string {
  const m = step.measurements;
  const total =
    step.settledAt !== null && step.restartIssuedAt !== null
      ? step.settledAt - step.restartIssuedAt
      : (m.restartMs ?? 0) + (m.settleMs ?? 0);
  return `settled in ${formatDuration(total)}, ${plural(m.tasksMoved, "task")} moved, downtime ${taskSecondsText(m.taskDowntimeMs)}`;
}

function continuedText(state: RolloutState, step: StepRecord): string {
  const record = [...state.approvals]
    .reverse()
    .find((a) => a.step === step.step && a.decision === "continue");
  if (record === undefined) return `continued anyway${noteText(step)}`;
  return `continued anyway by ${mention(record.by)} at ${utcTime(record.at)}, without a passed gate`;
}

function noteText(step: StepRecord): string {
  return step.note === null ? "" : `: ${truncateText(escapeMrkdwn(stepNoteText(step.note)), MAX_NOTE)}`;
}

/** The gate's reasons while settling; the last reasons seen when the step was continued or failed. */
function gateSection(step: StepRecord): KnownBlock | null {
  if (step.gate.length === 0) return null;
  if (step.status === "settling") return section(gateLines(step.gate).join("\n"));
  if (step.status === "continued" || step.status === "failed") {
    return section(["The gate had not passed:", ...gateLines(step.gate)].join("\n"));
  }
  return null;
}

function contextTexts(step: StepRecord): string[] {
  const m = step.measurements;
  const texts = [`\`${escapeMrkdwn(step.workerId)}\``];
  if (step.fromVersion !== null) texts.push(`was ${escapeMrkdwn(step.fromVersion)}`);
  if (step.status !== "pending" && step.status !== "skipped") {
    texts.push(`${plural(m.tasksMoved, "task")} moved`, `downtime ${taskSecondsText(m.taskDowntimeMs)}`);
    if (m.rebalances > 0) texts.push(`${plural(m.rebalances, "rebalance")} (${m.eagerRebalances} eager)`);
  }
  if (step.restartIssuedAt !== null) texts.push(`started ${utcTime(step.restartIssuedAt)}`);
  return texts;
}

/** One-line summary (escaped mrkdwn) for the notification fallback. */
function summary(state: RolloutState, step: StepRecord): string {
  switch (step.status) {
    case "pending":
      return "pending";
    case "restart-issued":
    case "restarting":
      return "restarting";
    case "waiting-back":
      return "restart issued, waiting for it to come back";
    case "settling":
      return `back, waiting for the cluster to settle (${plural(step.gate.length, "reason")})`;
    case "settled":
      return settledText(step);
    case "skipped":
      return `skipped${noteText(step)}`;
    case "continued":
      return continuedText(state, step);
    case "failed":
      return `failed${noteText(step)}`;
  }
}
