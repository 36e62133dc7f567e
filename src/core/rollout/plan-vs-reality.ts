import { formatDuration } from "../format-duration.js";
import type { PlanVsReality } from "./summarize.js";

/**
 * "moves 2 (plan 2) · task downtime 1m14s (plan 1m40s) · wall 1m45s (plan 3m40s)": the plan's predictions next to
 * what the rollout measured, for the terminal and the Slack report alike.
 */
export function planVsRealityText(p: PlanVsReality): string {
  return [
    `moves ${p.tasksMoved.real} (plan ${p.tasksMoved.predicted})`,
    `task downtime ${formatDuration(p.taskDowntimeMs.real)} (plan ${formatDuration(p.taskDowntimeMs.predicted)})`,
    `wall ${formatDuration(p.wallMs.real)} (plan ${formatDuration(p.wallMs.predicted)})`,
    `interruptions planned ${p.interruptions.predicted}`,
  ].join(" · ");
}
