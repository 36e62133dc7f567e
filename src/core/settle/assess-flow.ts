import { formatDuration } from "../format-duration.js";
import type { BaselineFlow, GateReason } from "./settle-types.js";
import type { FlowTrack, TaskFlowTrack } from "./track-flow.js";

/** How a step's baseline learns the tasks' flow, or why it cannot. */
export type FlowLearning =
  | { readonly kind: "learned"; readonly flow: BaselineFlow }
  | { readonly kind: "learning"; readonly remainingMs: number }
  | { readonly kind: "unseen" };

/**
 * Which tasks flow before a step: a task with a live instance whose records advanced within the last `windowMs` is
 * flowing, and so is a sink task with records waiting (lag above zero: it has data to move, so moving nothing is a
 * stall, not idleness); one that moved nothing through the window with nothing waiting is idle (exempt from the
 * data-flow condition). Learning until
 * the track has watched the cluster for a whole window; unseen when no worker's metrics have per-task series.
 */
export function learnBaselineFlow(track: FlowTrack, now: number, windowMs: number): FlowLearning {
  if (!track.visible) return { kind: "unseen" };
  if (track.since === null || now - track.since < windowMs)
    return { kind: "learning", remainingMs: windowMs - (track.since === null ? 0 : now - track.since) };
  const flowing: string[] = [];
  const idle: string[] = [];
  const errors: Record<string, number> = {};
  const lag: Record<string, number> = {};
  for (const [task, t] of Object.entries(track.tasks)) {
    errors[task] = t.errors;
    if (t.lag !== null) lag[task] = t.lag;
    if (t.worker === null) continue;
    const waiting = t.kind === "sink" && (t.lag ?? 0) > 0;
    if ((t.movedAt !== null && t.movedAt >= now - windowMs) || waiting) flowing.push(task);
    else idle.push(task);
  }
  return { kind: "learned", flow: { flowing, idle, errors, lag } };
}

/** The baseline's flow when learned, else null (not visible, or still learning: the gate judges by statuses). */
export function learnedFlow(track: FlowTrack, now: number, windowMs: number): BaselineFlow | null {
  const learning = learnBaselineFlow(track, now, windowMs);
  return learning.kind === "learned" ? learning.flow : null;
}

export interface FlowAssessment {
  /** Record failures that rose during the step: the gate fails. */
  readonly failures: readonly GateReason[];
  readonly reasons: readonly GateReason[];
}

/**
 * The gate's data-flow conditions: every task that flowed in the baseline flows now, that is, it has moved data since
 * it was (re)started and its latest reading showed progress (`data-not-flowing` until then); none has shown no
 * progress for `stallAfterMs` (`data-stalled`); and no task's record failures rose (`task-errors`). Having moved once
 * is not enough: a task that wrote a few records after its restart and then stopped would pass a gate that settles
 * within seconds, and is a stall. Tasks in `notRunning` are left to the status conditions.
 */
export function assessFlow(
  baseline: BaselineFlow,
  track: FlowTrack,
  notRunning: ReadonlySet<string>,
  now: number,
  stallAfterMs: number,
): FlowAssessment {
  const waiting: { task: string; runningForMs: number | null; quietMs?: number }[] = [];
  const stalled: { task: string; connector: string; lastMovedAt: number | null; quietMs: number }[] = [];
  for (const task of baseline.flowing) {
    if (notRunning.has(task)) continue;
    const t = track.tasks[task];
    if (t === undefined || t.worker === null || t.startedAt === null) {
      waiting.push({ task, runningForMs: null });
      continue;
    }
    const quietMs = now - (t.progressAt ?? t.startedAt);
    if (quietMs >= stallAfterMs)
      stalled.push({ task, connector: connectorOf(task), lastMovedAt: t.movedAt, quietMs });
    else if (!t.moved) waiting.push({ task, runningForMs: now - t.startedAt });
    else if (t.progressAt !== t.readAt) waiting.push({ task, runningForMs: now - t.startedAt, quietMs });
  }
  const reasons: GateReason[] = [];
  if (stalled.length > 0)
    reasons.push({
      code: "data-stalled",
      tasks: stalled,
      message: `${stalled.length} ${plural(stalled.length)} RUNNING with no data for over ${formatDuration(stallAfterMs)} (${stalled
        .slice(0, 5)
        .map((s) => `${s.task} ${formatDuration(s.quietMs)}`)
        .join(", ")})`,
    });
  if (waiting.length > 0)
    reasons.push({
      code: "data-not-flowing",
      tasks: waiting,
      message: `${waiting.length} ${plural(waiting.length)} RUNNING without data yet (${waiting
        .slice(0, 5)
        .map((w) =>
          w.runningForMs === null
            ? `${w.task} not in its worker's metrics`
            : w.quietMs !== undefined
              ? `${w.task} no progress for ${formatDuration(w.quietMs)}`
              : `${w.task} ${formatDuration(w.runningForMs)}`,
        )
        .join(", ")})`,
    });
  return { failures: taskErrors(baseline, track), reasons };
}

function taskErrors(baseline: BaselineFlow, track: FlowTrack): GateReason[] {
  const rose: { task: string; failures: number }[] = [];
  for (const [task, t] of Object.entries(track.tasks)) {
    const more = t.errors - (baseline.errors[task] ?? 0);
    if (more > 0) rose.push({ task, failures: more });
  }
  if (rose.length === 0) return [];
  return [
    {
      code: "task-errors",
      tasks: rose,
      message: `record failures during the step: ${rose
        .slice(0, 5)
        .map((r) => `${r.task} +${r.failures}`)
        .join(", ")}`,
    },
  ];
}

/** Sink tasks whose lag is above its baseline, largest first, with how it moved at the last read. */
export function growingLag(
  baseline: BaselineFlow,
  track: FlowTrack,
  peaks: Readonly<Record<string, number>> = {},
): { task: string; lag: number; peak: number; trend: "rising" | "falling" | "steady" }[] {
  const out: { task: string; lag: number; peak: number; trend: "rising" | "falling" | "steady" }[] = [];
  for (const [task, t] of Object.entries(track.tasks)) {
    if (t.kind !== "sink") continue;
    const lag = t.lag ?? 0;
    const peak = Math.max(peaks[task] ?? 0, lag);
    if (peak <= (baseline.lag[task] ?? 0)) continue;
    out.push({ task, lag, peak, trend: trendOf(t) });
  }
  return out.sort((a, b) => b.peak - a.peak || b.lag - a.lag);
}

/** Each sink task whose lag now stands above its baseline's and above its peak so far: the new peaks. */
export function lagPeaks(
  baseline: BaselineFlow,
  track: FlowTrack,
  peaks: Readonly<Record<string, number>>,
): Record<string, number> | null {
  let next: Record<string, number> | null = null;
  for (const [task, t] of Object.entries(track.tasks)) {
    if (t.kind !== "sink" || t.lag === null || t.lag <= (baseline.lag[task] ?? 0)) continue;
    if (t.lag <= (peaks[task] ?? 0)) continue;
    next ??= { ...peaks };
    next[task] = t.lag;
  }
  return next;
}

function trendOf(t: TaskFlowTrack): "rising" | "falling" | "steady" {
  if (t.lagDelta === null || t.lagDelta === 0) return "steady";
  return t.lagDelta > 0 ? "rising" : "falling";
}

function connectorOf(task: string): string {
  return task.slice(0, task.lastIndexOf("/"));
}

function plural(n: number): string {
  return n === 1 ? "task" : "tasks";
}
