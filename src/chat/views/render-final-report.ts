import type { KnownBlock } from "@slack/types";
import { formatDuration } from "../../core/format-duration.js";
import { plural } from "../../core/plural.js";
import type { ApprovalRecord } from "../../core/rollout/approval-types.js";
import { rollbackOf } from "../../core/rollout/rollback-of.js";
import type { RolloutState, StepRecord } from "../../core/rollout/rollout-state.js";
import {
  dataFlowTotals,
  disruptionTotals,
  stepsDone,
  summarizeRollout,
} from "../../core/rollout/summarize.js";
import { dataFlowTotalsText, stepDataFlowText } from "../../wording/data-flow-text.js";
import { stepExactlyOnceText } from "../../wording/exactly-once-text.js";
import { finishReasonText } from "../../wording/reason-text.js";
import { planVsRealityText } from "../../wording/summary-text.js";
import { taskSecondsText } from "../../wording/task-time-text.js";
import { codeSection, context, message, section, type ViewMessage } from "./blocks.js";
import { clusterStateLines } from "./cluster-state-lines.js";
import { mention, utcTime } from "./format.js";
import { escapeMrkdwn, fitLines, MAX_SECTION_TEXT, truncateText } from "./limits.js";
import { approvalLabel, disruptionText, rolloutSubject } from "./rollout-mrkdwn.js";

const RESULT_ICON = { succeeded: "✅", aborted: "🛑", failed: "❌" } as const;
const MAX_REASON = 1000;
const NAME_WIDTH = 20;

/** The broadcast reply at the end: result, reason, wall time, totals, cluster state, per-step lines. */
export function renderFinalReport(state: RolloutState, now: number): ViewMessage {
  const t = disruptionTotals(state);
  const subject = escapeMrkdwn(rolloutSubject(state));
  const fallback = `${resultWord(state)} ${subject} ${resultText(state)} after ${formatDuration(wallMs(state, now))}: ${stepsDone(state)}/${plural(state.steps.length, "step")} done, ${disruptionText(t)}`;
  return message(fallback, [...reportBlocks(state, now), context(...reportContext(state))], "report lines");
}

/** The report's body, also shown at the bottom of the parent once the rollout is finished. */
export function reportBlocks(state: RolloutState, now: number): KnownBlock[] {
  const subject = escapeMrkdwn(rolloutSubject(state));
  const p = state.phase;
  const text = p.kind === "finished" ? finishReasonText(p.reason) : "";
  const reason = text.length > 0 ? truncateText(escapeMrkdwn(text), MAX_REASON) : null;
  const headline = `*${resultWord(state)} ${subject}: ${resultText(state)}*`;
  const blocks: KnownBlock[] = [
    section(
      [
        headline,
        ...(reason === null ? [] : [reason]),
        `Wall time ${formatDuration(wallMs(state, now))} · ${stepCounts(state)}`,
      ].join("\n"),
    ),
    section(`*Totals:* ${totalsText(state)}`),
    ...dataFlowBlocks(state),
    ...exactlyOnceBlocks(state),
    ...planVsRealityBlocks(state, now),
    section(["*Cluster state:*", ...fitLines(clusterStateLines(state), MAX_SECTION_TEXT - 20)].join("\n")),
    ...rollbackOffer(state),
  ];
  if (state.steps.length > 0) blocks.push(codeSection("*Steps:*", stepTable(state)));
  return blocks;
}

/** An upgrade that did not succeed and moved workers: how to return them to the version they left. */
function rollbackOffer(state: RolloutState): KnownBlock[] {
  if (state.phase.kind !== "finished" || state.phase.result === "succeeded") return [];
  const plan = rollbackOf(state);
  if (plan.kind !== "rollback") return [];
  const workers = escapeMrkdwn(plan.target.workers.join(", "));
  return [
    section(
      `*Roll back:* \`/connect-roll rollback ${escapeMrkdwn(state.cluster)}\` returns ${workers} to ${escapeMrkdwn(plan.version)}, newest move first.`,
    ),
  ];
}

/** The data the tasks stopped moving, from the per-task metrics: the totals, then one line per step that stopped any. */
function dataFlowBlocks(state: RolloutState): KnownBlock[] {
  const totals = dataFlowTotals(state);
  if (totals === null) {
    if (state.plan?.dataFlow.kind !== "unseen") return [];
    return [
      section("*Data flow:* not visible (no per-task metrics): the gate judged by task statuses alone."),
    ];
  }
  const steps = state.steps.flatMap((s) => {
    const text = stepDataFlowText(s.worker, s.dataFlow);
    return text === null ? [] : [`• ${escapeMrkdwn(text)}`];
  });
  return [
    section(
      [
        `*Data flow:* ${escapeMrkdwn(dataFlowTotalsText(totals))}`,
        ...fitLines(steps, MAX_SECTION_TEXT - 200),
      ].join("\n"),
    ),
  ];
}

/** One line per step that restarted or moved exactly-once source tasks. */
function exactlyOnceBlocks(state: RolloutState): KnownBlock[] {
  const lines = state.steps.flatMap((s) => {
    const text = stepExactlyOnceText(s.worker, s.exactlyOnce);
    return text === null ? [] : [`• ${escapeMrkdwn(text)}`];
  });
  if (lines.length === 0) return [];
  return [section(["*Exactly-once:*", ...fitLines(lines, MAX_SECTION_TEXT - 40)].join("\n"))];
}

/** The plan's predictions next to what happened, once the rollout is finished. */
function planVsRealityBlocks(state: RolloutState, now: number): KnownBlock[] {
  if (state.phase.kind !== "finished") return [];
  const p = summarizeRollout(state, now).planVsReality;
  return p === null ? [] : [section(`*Plan vs reality:* ${escapeMrkdwn(planVsRealityText(p))}`)];
}

function resultWord(state: RolloutState): string {
  return state.phase.kind === "finished" ? RESULT_ICON[state.phase.result] : "🔄";
}

function resultText(state: RolloutState): string {
  return state.phase.kind === "finished" ? state.phase.result : "still running";
}

function wallMs(state: RolloutState, now: number): number {
  return (state.finishedAt ?? now) - state.startedAt;
}

/** "6/6 steps done (4 settled, 1 continued anyway, 1 skipped)", "… 1 not brought back". */
function stepCounts(state: RolloutState): string {
  const count = (status: StepRecord["status"]) => state.steps.filter((s) => s.status === status).length;
  const notBack = state.steps.filter((s) => s.note?.kind === "not-back").length;
  const parts = [`${count("settled")} settled`];
  if (count("continued") > 0) parts.push(`${count("continued")} continued anyway`);
  if (count("skipped") > notBack) parts.push(`${count("skipped") - notBack} skipped`);
  if (notBack > 0) parts.push(`${notBack} not brought back`);
  return `${stepsDone(state)}/${plural(state.steps.length, "step")} done (${parts.join(", ")})`;
}

function totalsText(state: RolloutState): string {
  const t = disruptionTotals(state);
  const parts = [disruptionText(t), `${plural(t.rebalances, "rebalance")} (${t.eagerRebalances} eager)`];
  const plan = state.plan;
  if (plan !== null) {
    const forecast = plan.totals.paces?.find((f) => f.pace === plan.pace);
    parts.push(
      `predicted ${plural(plan.totals.predictedMoves, "move")} and downtime ${taskSecondsText(forecast?.taskDowntimeMs ?? plan.totals.predictedTaskDowntimeMs)}`,
    );
  }
  return parts.join(" · ");
}

const STATUS_WORD: Readonly<Record<StepRecord["status"], string>> = {
  pending: "not run",
  "restart-issued": "in flight",
  restarting: "in flight",
  "waiting-back": "in flight",
  settling: "not settled",
  settled: "settled",
  continued: "continued",
  skipped: "skipped",
  failed: "failed",
};

/** One fixed-width line per step (escaped, for a code block). */
function stepTable(state: RolloutState): string[] {
  const width = Math.min(NAME_WIDTH, Math.max(6, ...state.steps.map((s) => s.worker.length)));
  const head = `${"#".padStart(3)}  ${"worker".padEnd(width)}  ${"result".padEnd(11)}  restart  settle   moved  downtime (task-seconds)`;
  const rows = state.steps.map((s) => {
    const m = s.measurements;
    const name = truncateText(s.worker, width).padEnd(width);
    const cells = [
      String(s.step).padStart(3),
      escapeMrkdwn(name),
      `${s.note?.kind === "not-back" ? "not back" : STATUS_WORD[s.status]}${afterRecordLost(s) ? "†" : ""}${s.isLeader ? "*" : ""}`.padEnd(
        11,
      ),
      (m.restartMs === null ? "-" : formatDuration(m.restartMs)).padEnd(7),
      (m.settleMs === null ? "-" : formatDuration(m.settleMs)).padEnd(7),
      String(m.tasksMoved).padStart(5),
      Math.round(m.taskDowntimeMs / 1000).toLocaleString("en-US"),
    ];
    return cells.join("  ");
  });
  const leader = state.steps.some((s) => s.isLeader) ? ["* group leader"] : [];
  const lost = state.steps.some(afterRecordLost)
    ? [
        "† found restarted after this rollout's lost record was written back: by its own lost part, a crash, or someone else",
      ]
    : [];
  return [head, ...rows, ...leader, ...lost];
}

/** A step skipped as found done after the rollout's lost record was written back. */
function afterRecordLost(s: RolloutState["steps"][number]): boolean {
  const note = s.note;
  return (
    s.status === "skipped" &&
    (note?.kind === "on-target" || note?.kind === "restarted-since-start") &&
    note.afterRecordLost === true
  );
}

function approvalText(record: ApprovalRecord): string {
  const verb = {
    approve: "approved",
    abort: "aborted",
    "keep-waiting": "keep waiting",
    continue: "continued anyway",
    "restart-tasks": "failed tasks restarted",
    "restart-again": "restarted again",
    "continue-without": "continued without it",
    rollback: "rolled back",
  }[record.decision];
  return `${approvalLabel(record.kind)}: ${verb} by ${mention(record.by)} at ${utcTime(record.at)}`;
}

function reportContext(state: RolloutState): string[] {
  const texts = [
    `job \`${escapeMrkdwn(state.jobId)}\``,
    `requested by ${mention(state.requestedBy)}`,
    `started ${utcTime(state.startedAt)}`,
  ];
  if (state.finishedAt !== null) texts.push(`finished ${utcTime(state.finishedAt)}`);
  const approvals = state.approvals.slice(-5).map(approvalText);
  const hidden = state.approvals.length - approvals.length;
  if (approvals.length > 0)
    texts.push(`${hidden > 0 ? `+${hidden} earlier decisions; ` : ""}${approvals.join("; ")}`);
  return texts;
}
