import type { LabTimeline } from "../../src/lab/lab-ledger.js";
import { percentile } from "../metrics.js";

/**
 * The lab benchmark's figures from the lab's ground truth (the lab connector's acknowledged records, its task start
 * and stop lines, the lab's own worker stops), computed the same way for every strategy.
 */
export interface GapFigures {
  /** Over tasks, of each task's total time without data during the run (tasks without a gap count 0). */
  readonly p50Ms: number;
  readonly maxMs: number;
  /** Summed over tasks. */
  readonly sumMs: number;
}

export interface LabRunFigures {
  readonly wallMs: number;
  readonly gap: GapFigures;
  /** 0–1: the largest share of tasks without data at one instant. */
  readonly peakShare: number;
  readonly moves: number;
  readonly interruptions: number;
  readonly stopTheWorld: number;
  /** Interruptions while the worker last stopped was not the group's leader. */
  readonly followerStepInterruptions: number;
  readonly settled: boolean;
  /** Why a run did not settle, or what else a reader must know about it. */
  readonly note?: string;
}

type Gap = LabTimeline["gaps"][number];

const clip = (g: Gap, from: number, to: number) => ({
  task: g.task,
  from: Math.max(from, g.fromMs),
  to: Math.min(to, g.toMs ?? to),
});

/** Each task's total time without data in [from, to] (open gaps end at `to`); every task of `tasks` is listed. */
export function gapByTask(
  gaps: readonly Gap[],
  tasks: readonly string[],
  from: number,
  to: number,
): Map<string, number> {
  const out = new Map<string, number>(tasks.map((t) => [t, 0]));
  for (const g of gaps) {
    const c = clip(g, from, to);
    if (c.to > c.from) out.set(c.task, (out.get(c.task) ?? 0) + (c.to - c.from));
  }
  return out;
}

export function gapFigures(
  gaps: readonly Gap[],
  tasks: readonly string[],
  from: number,
  to: number,
): GapFigures {
  const per = [...gapByTask(gaps, tasks, from, to).values()];
  return {
    p50Ms: percentile(per, 50),
    maxMs: Math.max(0, ...per),
    sumMs: per.reduce((a, b) => a + b, 0),
  };
}

/**
 * The time series of how many tasks are without data, as steps `[at, count]` from `from` to `to`: a task counts from
 * the start of a gap to its end. The peak share is its largest count over `taskCount`.
 */
export function noDataSeries(gaps: readonly Gap[], from: number, to: number): [number, number][] {
  const edges: [number, number][] = [];
  for (const g of gaps) {
    const c = clip(g, from, to);
    if (c.to <= c.from) continue;
    edges.push([c.from, 1], [c.to, -1]);
  }
  // Ends before starts at the same instant: a task handed over without a gap is not counted twice.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const series: [number, number][] = [[from, 0]];
  let count = 0;
  for (const [at, d] of edges) {
    count += d;
    const last = series[series.length - 1];
    if (last !== undefined && last[0] === at) last[1] = count;
    else series.push([at, count]);
  }
  return series;
}

export function peakShare(gaps: readonly Gap[], taskCount: number, from: number, to: number): number {
  if (taskCount <= 0) return 0;
  const peak = Math.max(0, ...noDataSeries(gaps, from, to).map(([, n]) => n));
  return peak / taskCount;
}

/**
 * Interruptions during follower steps: each interruption is charged to the worker stopped last before it; those whose
 * worker was not the group's leader when it was stopped are follower-step interruptions. One before any stop is
 * charged to no step (not counted).
 */
export function followerStepInterruptions(timeline: Pick<LabTimeline, "interruptions" | "stops">): number {
  const stops = [...timeline.stops].sort((a, b) => a.at - b.at);
  let n = 0;
  for (const i of timeline.interruptions) {
    let step: (typeof stops)[number] | undefined;
    for (const s of stops) if (s.at <= i.at) step = s;
    if (step !== undefined && !step.wasLeader) n += 1;
  }
  return n;
}

export interface Spread {
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

export function spreadOf(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  return {
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** The numeric figures of a run, by name, for means and spreads. */
export function flatFigures(f: LabRunFigures): Record<string, number> {
  return {
    wallMs: f.wallMs,
    gapP50Ms: f.gap.p50Ms,
    gapMaxMs: f.gap.maxMs,
    gapSumMs: f.gap.sumMs,
    peakShare: f.peakShare,
    moves: f.moves,
    interruptions: f.interruptions,
    stopTheWorld: f.stopTheWorld,
    followerStepInterruptions: f.followerStepInterruptions,
  };
}

export function spreads(runs: readonly LabRunFigures[]): Record<string, Spread> {
  const out: Record<string, Spread> = {};
  const flat = runs.map(flatFigures);
  for (const key of Object.keys(flat[0] ?? {})) {
    const s = spreadOf(flat.map((f) => f[key] ?? 0));
    if (s !== null) out[key] = s;
  }
  return out;
}
