import { formatDuration } from "../format-duration.js";
import { plural } from "../plural.js";
import type { PaceForecast, Plan, PlanStep } from "./plan-types.js";

const HEADERS = [
  "#",
  "worker",
  "role",
  "version",
  "protocol after",
  "tasks",
  "down",
  "moves",
  "window",
] as const;

/** The plan as a terminal table followed by reasons, windows, totals and findings. */
export function renderPlanText(plan: Plan): string {
  const lines: string[] = [];
  const leader = plan.leader.kind === "known" ? plan.leader.worker : `unknown (${plan.leader.reason})`;
  lines.push(`Plan for ${plan.cluster}: ${plan.target.kind} to ${plan.target.version} (pace ${plan.pace})`);
  lines.push(`Leader: ${leader}`);
  lines.push(
    `Delay: ${formatDuration(plan.delay.delayMs)} (${plan.delay.source}), expected restart ${formatDuration(plan.delay.expectedRestartMs)}${plan.delay.recommendedDelayMs === null ? "" : `, recommended ${formatDuration(plan.delay.recommendedDelayMs)}`}`,
  );
  lines.push("");
  lines.push(...renderTable(plan.steps));
  for (const s of plan.steps) lines.push(`  ${s.step}. ${s.worker}: ${s.reasons.join("; ")}`);
  for (const s of plan.skipped) lines.push(`  skipped ${s.worker}: ${s.reason}`);
  lines.push("");
  for (const w of plan.eagerWindows) lines.push(`Eager window: steps ${w.fromStep}–${w.toStep}`);
  for (const w of plan.compatibleWindows) lines.push(`Compatible window: steps ${w.fromStep}–${w.toStep}`);
  plan.windows.forEach((w, i) => {
    lines.push(
      w.closedByLeader === true
        ? `Delay window ${i + 1}: steps ${w.steps.join(", ")}, closed by the leader: ${Math.round(w.predictedHeldShare * 100)}% of tasks held until its stop, ${formatDuration(w.predictedDeadlineMs)} after the first stop`
        : `Delay window ${i + 1}: steps ${w.steps.join(", ")}, ${Math.round(w.predictedHeldShare * 100)}% of tasks held, deadline ${formatDuration(w.predictedDeadlineMs)} after the first stop`,
    );
  });
  const t = plan.totals;
  lines.push(
    `Totals: ${plural(t.steps, "step")}, ${plural(t.predictedMoves, "move")}, ${plural(t.predictedInterruptions, "interruption")}, worst task down ${formatDuration(t.predictedMaxDowntimeMs)}, wall ${formatDuration(t.predictedWallMs.safe)} (safe) / ${formatDuration(t.predictedWallMs.window)} (window)`,
  );
  lines.push(...paceLines(plan));
  if (plan.findings.length > 0) lines.push("", "Findings:");
  for (const f of plan.findings) lines.push(`  [${f.severity}] ${f.code}: ${f.message}`);
  for (const n of plan.notes) lines.push(`Note: ${n}`);
  if (plan.needsApproval) lines.push("", "This rollout needs approval.");
  return `${lines.join("\n")}\n`;
}

function renderTable(steps: readonly PlanStep[]): string[] {
  const rows = steps.map((s) => [
    String(s.step),
    s.worker,
    s.isLeader ? "leader" : "follower",
    `${s.fromVersion ?? "?"} → ${s.toVersion}`,
    s.protocolAfter ?? "-",
    String(s.tasks),
    formatDuration(s.predictedDowntimeMs),
    String(s.predictedMoves),
    s.window === null ? "-" : String(s.window + 1),
  ]);
  const all = [[...HEADERS], ...rows];
  const widths = HEADERS.map((_, c) => Math.max(...all.map((r) => (r[c] ?? "").length)));
  const line = (r: readonly string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(all[0] ?? []), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
}

/** Each pace's expected cost and the recommended one (plans that forecast paces). */
export function paceLines(plan: Plan): string[] {
  const paces = plan.totals.paces ?? [];
  if (paces.length === 0) return [];
  return [
    "Paces (expected):",
    ...paces.map(
      (f) =>
        `  ${paceForecastText(f)}${f.pace === plan.totals.recommendedPace ? "  ← least task downtime" : ""}`,
    ),
  ];
}

/** "rotate: task downtime 5m21s, wall 1m57s, peak 33 %, 3.5 of 6 steps restart the leader of the moment". */
export function paceForecastText(f: PaceForecast): string {
  const leaders =
    f.expectedLeaderSteps === undefined
      ? ""
      : `, about ${f.expectedLeaderSteps.toFixed(1)} steps restart the leader of the moment`;
  return `${f.pace}: task downtime ${formatDuration(f.taskDowntimeMs)}, wall ${formatDuration(f.wallMs)}, peak ${Math.round(f.peakShare * 100)} %${leaders}`;
}
