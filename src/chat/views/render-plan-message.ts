import type { KnownBlock } from "@slack/types";
import { formatDuration } from "../../core/format-duration.js";
import type { Finding, FindingSeverity, Plan, PlanStep, StepWindow } from "../../core/plan/plan-types.js";
import { paceForecastText } from "../../core/plan/render-plan-text.js";
import { plural } from "../../core/plural.js";
import { taskSecondsText } from "../../wording/task-time-text.js";
import { context, message, section, sectionsOf, type ViewMessage } from "./blocks.js";
import { escapeMrkdwn, fitLines, MAX_LINE, MAX_SECTION_TEXT, truncateText } from "./limits.js";

const SEVERITY_ORDER: readonly FindingSeverity[] = ["block", "warn", "info"];
const SEVERITY_TITLE: Readonly<Record<FindingSeverity, string>> = {
  block: "🛑 Blocking",
  warn: "⚠️ Warnings",
  info: "ℹ️ Info",
};
const MAX_STEP_SECTIONS = 8;

/** The dry run, as an ephemeral reply: order with reasons, leader, protocol per step, windows, predictions, findings. */
export function renderPlanMessage(plan: Plan): ViewMessage {
  const e = escapeMrkdwn;
  const leader = plan.leader.kind === "known" ? e(plan.leader.worker) : `unknown (${e(plan.leader.reason)})`;
  const d = plan.delay;
  const recommended =
    d.recommendedDelayMs === null ? "" : `, recommended ${formatDuration(d.recommendedDelayMs)}`;
  const blocks: KnownBlock[] = [
    section(
      [
        `*Plan for ${e(plan.cluster)}: ${plan.target.kind === "restart" ? "rolling restart" : `upgrade to ${e(plan.target.version)}`}* (pace ${plan.pace}; dry run, nothing was restarted)`,
        `*Leader:* ${leader} (restarted ${plan.pace === "rotate" ? "first" : "last"})`,
        `*Scheduled delay:* ${formatDuration(d.delayMs)} (${d.source}), expected restart ${formatDuration(d.expectedRestartMs)}${d.restartFitsInDelay ? "" : " (longer than the delay: tasks move to survivors)"}${recommended}`,
      ].join("\n"),
    ),
    ...sectionsOf(["*Order:*", ...plan.steps.map(stepLines), ...skippedLines(plan)], MAX_STEP_SECTIONS),
    section(windowsText(plan)),
    section(`*Predicted:* ${predictedText(plan)}`),
    ...pacesSection(plan),
  ];
  const findings = findingsText(plan.findings);
  if (findings !== null) blocks.push(section(findings));
  const footer = [
    ...plan.notes.slice(0, 5).map((n) => truncateText(e(n), MAX_LINE)),
    plan.needsApproval
      ? "This rollout will ask for approval before it starts or enters an eager window."
      : "",
  ];
  if (footer.some((t) => t.length > 0)) blocks.push(context(...footer));
  const fallback = `Plan for ${e(plan.cluster)}: ${plural(plan.steps.length, "step")}, ${plural(plan.eagerWindows.length, "eager window")}, ${plural(plan.findings.filter((f) => f.severity === "block").length, "blocking finding")}`;
  return message(fallback, blocks, "plan blocks");
}

function stepLines(s: PlanStep): string {
  const e = escapeMrkdwn;
  const role = s.isLeader ? "👑 leader" : "follower";
  const versions = `${e(s.fromVersion ?? "?")} → ${e(s.toVersion)}`;
  const protocol =
    s.protocolDuring !== null && s.protocolDuring !== s.protocolAfter
      ? `${s.protocolDuring} while out, ${s.protocolAfter ?? "-"} after`
      : `${s.protocolAfter ?? "-"}`;
  const eager = s.protocolDuring === "eager" || s.protocolAfter === "eager" ? " ⚠️" : "";
  const head = `*${s.step}. ${e(s.worker)}* · ${role} · ${plural(s.tasks, "task")} · ${versions} · ${protocol}${eager} · ${s.disruption} · down ≤ ${formatDuration(s.predictedDowntimeMs)} · ${plural(s.predictedMoves, "move")}`;
  const reasons =
    s.reasons.length === 0 ? "" : `\n      _${truncateText(e(s.reasons.join("; ")), MAX_LINE)}_`;
  return `${head}${reasons}`;
}

function skippedLines(plan: Plan): string[] {
  return plan.skipped.map(
    (s) => `_skipped ${escapeMrkdwn(s.worker)}: ${truncateText(escapeMrkdwn(s.reason), MAX_LINE)}_`,
  );
}

function rangeText(w: StepWindow): string {
  return w.fromStep === w.toStep ? `step ${w.fromStep}` : `steps ${w.fromStep}–${w.toStep}`;
}

function windowsText(plan: Plan): string {
  const lines =
    plan.eagerWindows.length === 0
      ? ["*Eager windows:* none, no stop-the-world rebalance expected"]
      : [
          `*Eager windows* (stop-the-world rebalances, approval asked): ${plan.eagerWindows.map(rangeText).join(", ")}`,
        ];
  if (plan.windows.length > 0) {
    const delay = plan.windows.map(
      (w, i) =>
        `${i + 1}: steps ${w.steps.join(", ")}, ${Math.round(w.predictedHeldShare * 100)}% of tasks held, back ${formatDuration(w.predictedDeadlineMs)} after the first stop`,
    );
    lines.push("*Delay windows:*", ...delay);
  }
  return fitLines(lines, MAX_SECTION_TEXT).join("\n");
}

/** Each pace's expected cost, the one with the least task downtime marked. */
function pacesSection(plan: Plan): KnownBlock[] {
  const paces = plan.totals.paces ?? [];
  if (paces.length === 0) return [];
  const lines = paces.map(
    (f) =>
      `• ${escapeMrkdwn(paceForecastText(f))}${f.pace === plan.totals.recommendedPace ? " *← least task downtime*" : ""}`,
  );
  return [section(["*Paces (expected):*", ...lines].join("\n"))];
}

function predictedText(plan: Plan): string {
  const t = plan.totals;
  return [
    plural(t.predictedMoves, "task move"),
    plural(t.predictedInterruptions, "interruption"),
    `downtime ${taskSecondsText(t.predictedTaskDowntimeMs)}`,
    `worst task down ${formatDuration(t.predictedMaxDowntimeMs)}`,
    `wall time ${formatDuration(t.predictedWallMs.safe)} (safe) / ${formatDuration(t.predictedWallMs.window)} (window)`,
  ].join(" · ");
}

function findingsText(findings: readonly Finding[]): string | null {
  if (findings.length === 0) return null;
  const lines: string[] = [];
  for (const severity of SEVERITY_ORDER) {
    const group = findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    lines.push(`*${SEVERITY_TITLE[severity]}*`);
    for (const f of group)
      lines.push(`• \`${escapeMrkdwn(f.code)}\` ${truncateText(escapeMrkdwn(f.message), MAX_LINE)}`);
  }
  return fitLines(lines, MAX_SECTION_TEXT).join("\n");
}
