import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type { RolloutState, StepRecord } from "../core/rollout/rollout-state.js";
import { stepsDone } from "../core/rollout/summarize.js";
import type {
  ChartApproval,
  ChartData,
  ChartDataOptions,
  ChartDeadline,
  ChartSegment,
  ChartWindow,
} from "./chart-types.js";
import { chartWindows } from "./chart-windows.js";

/** The timeline of `state`, finished or running. Pure. */
export function buildChartData(state: RolloutState, options: ChartDataOptions = {}): ChartData {
  const running = state.phase.kind !== "finished";
  const endAt = running
    ? Math.max(options.now ?? state.updatedAt, state.updatedAt)
    : (state.finishedAt ?? state.updatedAt);
  const rel = (at: number) => Math.max(0, at - state.startedAt);
  const spanMs = Math.max(1, rel(endAt));
  const windows = chartWindows(state, spanMs);
  const settleEnds = windowSettleEnds(state, windows);
  return {
    title: `${state.cluster} → ${state.target.argument}: ${resultWords(state, options.interrupted === true)}`,
    subtitle: subtitleOf(state, spanMs, options),
    startedAt: state.startedAt,
    spanMs,
    running,
    lanes: state.steps.map((s) => ({
      step: s.step,
      worker: s.worker,
      isLeader: s.isLeader,
      status: s.status,
      segments: segmentsOf(s, rel, spanMs, settleEnds.get(s.step) ?? null),
    })),
    windows,
    deadlines: deadlinesOf(state, windows, rel),
    approvals: approvalsOf(state, rel),
    stepStarts: state.steps.flatMap((s) =>
      s.restartIssuedAt === null ? [] : [{ step: s.step, worker: s.worker, at: rel(s.restartIssuedAt) }],
    ),
    share: state.timeline.map((p) => ({
      at: rel(p.at),
      down: p.total > 0 ? p.down / p.total : 0,
      notFlowing: p.notFlowing === null ? null : p.total > 0 ? p.notFlowing / p.total : 0,
    })),
    flowVisible: state.timeline.some((p) => p.notFlowing !== null),
  };
}

function resultWords(state: RolloutState, interrupted: boolean): string {
  const phase = state.phase;
  if (interrupted && phase.kind !== "finished")
    return `interrupted, ${stepsDone(state)} of ${plural(state.steps.length, "step")} done`;
  switch (phase.kind) {
    case "finished":
      return phase.result;
    case "paused":
      return `paused before step ${phase.step}`;
    case "awaiting-approval":
      return "waiting for approval";
    default:
      return `running, ${stepsDone(state)} of ${plural(state.steps.length, "step")} done`;
  }
}

function subtitleOf(state: RolloutState, spanMs: number, options: ChartDataOptions): string {
  const workers = plural(state.steps.length, "worker");
  const parts = [workers, formatDuration(spanMs)];
  if (options.hideStart !== true) parts.push(`started ${new Date(state.startedAt).toISOString()}`);
  if (options.note !== undefined) parts.push(options.note);
  return parts.join(" · ");
}

/**
 * A step's lane. A step crossed inside a window settles with the window's gate, at the window's end (`windowEnd`):
 * its tasks are held until then.
 */
function segmentsOf(
  s: StepRecord,
  rel: (at: number) => number,
  spanMs: number,
  windowEnd: number | null,
): ChartSegment[] {
  if (s.restartIssuedAt === null) return [];
  const issued = rel(s.restartIssuedAt);
  const back = s.backAt === null ? null : rel(s.backAt);
  const settled = windowEnd ?? (s.settledAt === null ? null : rel(s.settledAt));
  const segments: ChartSegment[] = [{ kind: "down", from: issued, to: back ?? spanMs }];
  if (back === null) return segments;
  const settleTo = settled === null ? spanMs : Math.max(back, settled);
  if (settleTo > back) segments.push({ kind: "settling", from: back, to: settleTo });
  if (settled !== null && settleTo < spanMs) segments.push({ kind: "on-target", from: settleTo, to: spanMs });
  return segments;
}

/** Step → when its window's gate passed (or the axis' end, still open), for the steps crossed inside a window. */
function windowSettleEnds(state: RolloutState, windows: readonly ChartWindow[]): Map<number, number> {
  const ends = new Map<number, number>();
  for (const w of windows) {
    const last = w.steps.at(-1);
    const closing = state.steps.find((s) => s.step === last);
    const closedAt = closing?.settledAt ?? null;
    for (const step of w.steps) {
      if (step === last) continue;
      ends.set(step, closedAt === null ? w.to : Math.max(0, closedAt - state.startedAt));
    }
  }
  return ends;
}

function deadlinesOf(
  state: RolloutState,
  windows: readonly ChartWindow[],
  rel: (at: number) => number,
): ChartDeadline[] {
  const delay = state.settings.delayMs;
  if (delay <= 0) return [];
  const byStep = new Map(state.steps.map((s) => [s.step, s]));
  const inWindow = new Set(windows.flatMap((w) => w.steps));
  const deadlines: ChartDeadline[] = [];
  for (const w of windows) {
    if (w.kind !== "pace") continue;
    const followers = w.steps.filter((n) => byStep.get(n)?.isLeader === false);
    // The leader closing a window hands its held tasks out itself: its stop, not the deadline, ends the wait.
    if (followers.length < w.steps.length) continue;
    const first = byStep.get(w.steps[0] ?? 0)?.restartIssuedAt ?? null;
    if (first !== null) deadlines.push({ at: rel(first) + delay, steps: w.steps });
  }
  for (const s of state.steps) {
    if (s.isLeader || inWindow.has(s.step) || s.restartIssuedAt === null || s.status === "skipped") continue;
    deadlines.push({ at: rel(s.restartIssuedAt) + delay, steps: [s.step] });
  }
  return deadlines.sort((a, b) => a.at - b.at);
}

function approvalsOf(state: RolloutState, rel: (at: number) => number): ChartApproval[] {
  const decided: ChartApproval[] = state.approvals.map((a) => ({
    at: rel(a.at),
    kind: a.kind,
    step: a.step,
    decision: a.decision,
    by: a.by,
  }));
  if (state.phase.kind !== "awaiting-approval") return decided;
  const asked = state.phase.approval;
  return [
    ...decided,
    { at: rel(asked.askedAt), kind: asked.kind, step: asked.step, decision: null, by: null },
  ];
}
