import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type { CanaryFigures, CanaryFinding } from "../core/rollout/canary-types.js";

/** The canary soak in words, for the prompt, the thread, the terminal and the final report (plain text). */

/** "record rate 12.0/s per task vs 48.0/s on the old workers (0.25× the same connectors', below 0.5×)". */
export function canaryFindingText(f: CanaryFinding): string {
  switch (f.metric) {
    case "record-rate":
      return `record rate ${rate(f.canary)} per task vs ${rate(f.others)} on the old workers (${ratio(f.ratio)} the same connectors', below ${ratio(f.minRatio)})`;
    case "record-failures":
      return `${plural(f.canary, "new record failure")} on its ${plural(f.canaryTasks, "task")} vs ${f.others} on the old workers' ${plural(f.otherTasks, "task")}`;
    case "canary-down":
      return "it does not answer on the new version";
    case "tasks-lost":
      return `${plural(f.tasks.length, "task")} it ran left it: ${f.tasks.slice(0, 5).join(", ")}${f.tasks.length > 5 ? ` and ${f.tasks.length - 5} more` : ""}`;
    case "gc-time":
      return `time in GC ${percent(f.canary)} of the soak vs ${percent(f.others)} on the old workers (above ${f.maxRatio}× theirs)`;
    case "heap":
      return `heap used ${percent(f.canary)} of its max at the soak's end vs ${percent(f.others)} on the old workers (above ${percent(f.maxShare)})`;
    case "task-failed":
      return `${plural(f.tasks.length, "task")} FAILED on it: ${f.tasks.slice(0, 5).join(", ")}${f.tasks.length > 5 ? ` and ${f.tasks.length - 5} more` : ""}`;
  }
}

/** "over 5m00s, 8 tasks on it at 47.5/s per task vs 48.0/s on 16 old (0.99×), 0 new record failures vs 0". */
export function canaryFiguresText(f: CanaryFigures): string {
  const rates =
    f.canaryRate === null || f.otherRate === null
      ? "no per-task record rates to compare (no per-task metrics)"
      : `${plural(f.canaryTasks, "task")} on it at ${rate(f.canaryRate)} per task vs ${rate(f.otherRate)} on ${f.otherTasks} old${f.rateRatio === null ? "" : ` (${ratio(f.rateRatio)})`}`;
  const gc =
    f.canaryGcShare == null || f.otherGcShare == null
      ? ""
      : `, GC ${percent(f.canaryGcShare)} of the time vs ${percent(f.otherGcShare)}`;
  const heap =
    f.canaryHeapShare == null || f.otherHeapShare == null
      ? ""
      : `, heap ${percent(f.canaryHeapShare)} of max vs ${percent(f.otherHeapShare)}`;
  return `over ${formatDuration(f.soakMs)}, ${rates}, ${plural(f.canaryFailures, "new record failure")} vs ${f.otherFailures}${gc}${heap}`;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)} %`;
}

export function canarySoakingText(worker: string, soakMs: number): string {
  return `canary ${worker}: soaking for ${formatDuration(soakMs)} beside the old workers before the next step`;
}

export function canaryPassedText(worker: string, figures: CanaryFigures): string {
  return `canary ${worker} passed: ${canaryFiguresText(figures)}`;
}

function rate(perSecond: number): string {
  return `${perSecond.toFixed(1)}/s`;
}

function ratio(r: number): string {
  return `${r.toFixed(2)}×`;
}
