import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type { StepDataFlow } from "../core/rollout/rollout-state.js";
import type { DataFlowTotals } from "../core/rollout/summarize.js";
import { taskSecondsText } from "./task-time-text.js";

/**
 * The words for data flow, as the per-task metrics show it: a step's gaps, a sink's growing lag, the rollout's totals,
 * and why the gate cannot see data flow. Plain text, shared by the Slack thread and the terminal.
 */

/** "Data flow cannot be seen: …" — said once, when the workers' metrics have no per-task series. */
export function dataFlowUnseenText(workers: readonly string[]): string {
  const whose = workers.length > 0 ? `the metrics of ${workers.join(", ")} have` : "no worker's metrics have";
  return `Data flow cannot be seen: ${whose} no per-task series, so the gate judges by task statuses alone (a task RUNNING without data looks healthy). Export them with the rules in deploy/jmx-exporter/connect.yml.`;
}

/**
 * "data stopped 21s for worker-3's 8 tasks; longest 23s, orders-source/4" — the median and the longest gap of the
 * tasks the step stopped; null when none stopped (or data flow was not visible).
 */
export function stepDataFlowText(worker: string, flow: StepDataFlow | null): string | null {
  if (flow === null) return null;
  const gaps = Object.entries(flow.gaps).sort((a, b) => b[1] - a[1]);
  const [longest] = gaps;
  if (longest === undefined) return null;
  const median = median0(gaps.map(([, g]) => g));
  return gaps.length === 1
    ? `data stopped ${formatDuration(longest[1])} for ${worker}'s task ${longest[0]}`
    : `data stopped ${formatDuration(median)} for ${worker}'s ${plural(gaps.length, "task")}; longest ${formatDuration(longest[1])}, ${longest[0]}`;
}

/**
 * "lag 12,400 records on orders-sink/2, falling" for each sink whose lag grew during the step, or "lag rose to 1,840
 * records on orders-sink/2, now 120, falling" (", back to its baseline" at the baseline) once it has come down.
 */
export function lagLines(flow: StepDataFlow | null): string[] {
  const n = (x: number) => x.toLocaleString("en-US");
  return (flow?.lag ?? []).map((l) => {
    if (l.peak <= l.lag) return `lag ${n(l.lag)} records on ${l.task}, ${l.trend}`;
    return l.lag === 0
      ? `lag rose to ${n(l.peak)} records on ${l.task} during the step, back to 0`
      : `lag rose to ${n(l.peak)} records on ${l.task} during the step, now ${n(l.lag)}, ${l.trend}`;
  });
}

/** "data stopped for 24 tasks: longest 23s (orders-source/4), 490 task-seconds in all; 2 idle tasks exempt". */
export function dataFlowTotalsText(d: DataFlowTotals): string {
  const longest = Object.entries(d.perTask).sort((a, b) => b[1] - a[1])[0];
  const idle = d.tasksIdle > 0 ? `; ${plural(d.tasksIdle, "idle task")} exempt` : "";
  if (longest === undefined) return `no task's data stopped${idle}`;
  return `data stopped for ${plural(d.tasksMeasured, "task")}: longest ${formatDuration(longest[1])} (${longest[0]}), ${taskSecondsText(d.sumGapMs)} in all${idle}`;
}

function median0(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}
