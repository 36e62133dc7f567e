import type { LedgerEntry } from "../src/sim/ledger.js";
import type { DowntimeFigures, RunFigures, RunResult, StrategyId } from "./run-types.js";
import { floorTaskDowntimeMs, type Scenario } from "./scenarios.js";
import type { LedgerFigures } from "./sim-driver.js";

/** The figures of a run, their floor, their mean over seeds, and ratios (to the floor, to the best other). */

/** Nearest-rank percentile (p in 0–100) of unsorted values; 0 for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? 0;
}

export function downtimeFigures(perTaskMs: readonly number[]): DowntimeFigures {
  let sum = 0;
  let max = 0;
  for (const v of perTaskMs) {
    sum += v;
    if (v > max) max = v;
  }
  return { sumMs: sum, p50Ms: percentile(perTaskMs, 50), p99Ms: percentile(perTaskMs, 99), maxMs: max };
}

/** The reported figures of a ledger reading (drops the raw report). */
export function runFigures(
  f: LedgerFigures,
  toolDoneMs: number,
  override: { readonly moves?: number } = {},
): RunFigures {
  return {
    wallMs: f.wallMs,
    toolDoneMs,
    settled: f.settled,
    downtime: downtimeFigures(f.perTaskDowntimeMs),
    moves: override.moves ?? f.moves,
    interruptions: f.interruptions,
    rebalances: f.rebalances,
    eagerRebalances: f.eagerRebalances,
    peakShare: f.peakShare,
  };
}

/**
 * Task moves when some workers were replaced by new ones (a Deployment's new pods): a task RUNNING on a worker
 * name after that worker's replacement runs on a different worker than before it.
 */
export function countMovesWithReplacements(
  entries: readonly LedgerEntry[],
  replacedAt: ReadonlyMap<string, readonly number[]>,
): number {
  const lastOn = new Map<string, string>();
  let moves = 0;
  for (const e of entries) {
    if (e.state !== "RUNNING" || e.worker === null) continue;
    const incarnation = (replacedAt.get(e.worker) ?? []).filter((t) => t <= e.at).length;
    const identity = `${e.worker}#${incarnation}`;
    const last = lastOn.get(e.task);
    if (last !== undefined && last !== identity) moves += 1;
    lastOn.set(e.task, identity);
  }
  return moves;
}

/** A figure of the table: all are "lower is better". */
export type FigureKey =
  | "wall"
  | "downSum"
  | "downP50"
  | "downP99"
  | "downMax"
  | "moves"
  | "interruptions"
  | "rebalances"
  | "eagerRebalances"
  | "peakShare";

export const FIGURE_KEYS: readonly FigureKey[] = [
  "wall",
  "downSum",
  "downP50",
  "downP99",
  "downMax",
  "moves",
  "interruptions",
  "rebalances",
  "eagerRebalances",
  "peakShare",
];

export type FigureValues = Readonly<Record<FigureKey, number>>;

export function figureValues(f: RunFigures): FigureValues {
  return {
    wall: f.wallMs,
    downSum: f.downtime.sumMs,
    downP50: f.downtime.p50Ms,
    downP99: f.downtime.p99Ms,
    downMax: f.downtime.maxMs,
    moves: f.moves,
    interruptions: f.interruptions,
    rebalances: f.rebalances,
    eagerRebalances: f.eagerRebalances,
    peakShare: f.peakShare,
  };
}

/**
 * Per-figure lower bounds, not one achievable rollout: each task down only for its worker's restart (plus the
 * join rebalance and its start), nothing moved or interrupted, no eager rebalance; wall time of one restart (all
 * in parallel); peak share of one worker's tasks (one at a time). Rebalances have no floor here (null).
 */
export function floorFigures(s: Scenario): Readonly<Record<FigureKey, number | null>> {
  const perTask = floorTaskDowntimeMs(s);
  const tasks = s.sim.connectors * s.sim.tasksPerConnector;
  return {
    wall: perTask,
    downSum: perTask * tasks,
    downP50: perTask,
    downP99: perTask,
    downMax: perTask,
    moves: 0,
    interruptions: 0,
    rebalances: null,
    eagerRebalances: 0,
    peakShare: 1 / s.sim.workers,
  };
}

export interface StrategyAggregate {
  readonly strategy: StrategyId;
  readonly runs: number;
  /** Mean over the runs that produced figures; null when none did. */
  readonly mean: FigureValues | null;
  readonly min: FigureValues | null;
  readonly max: FigureValues | null;
}

function fold(values: readonly FigureValues[], pick: (xs: number[]) => number): FigureValues {
  const out: Partial<Record<FigureKey, number>> = {};
  for (const k of FIGURE_KEYS) out[k] = pick(values.map((v) => v[k]));
  return out as FigureValues;
}

export function aggregate(strategy: StrategyId, runs: readonly RunResult[]): StrategyAggregate {
  const values = runs.flatMap((r) => (r.figures ? [figureValues(r.figures)] : []));
  if (values.length === 0) return { strategy, runs: runs.length, mean: null, min: null, max: null };
  return {
    strategy,
    runs: runs.length,
    mean: fold(values, (xs) => xs.reduce((a, b) => a + b, 0) / xs.length),
    min: fold(values, (xs) => Math.min(...xs)),
    max: fold(values, (xs) => Math.max(...xs)),
  };
}

/** value / reference; null without a reference; 1 for 0/0; Infinity for x/0. */
export function ratio(value: number, reference: number | null): number | null {
  if (reference === null) return null;
  if (reference === 0) return value === 0 ? 1 : Number.POSITIVE_INFINITY;
  return value / reference;
}

/** The best (lowest) mean of `key` among the other strategies that produced figures. */
export function bestOther(
  aggregates: readonly StrategyAggregate[],
  strategy: StrategyId,
  key: FigureKey,
): { readonly strategy: StrategyId; readonly value: number } | null {
  let best: { strategy: StrategyId; value: number } | null = null;
  for (const a of aggregates) {
    if (a.strategy === strategy || a.mean === null) continue;
    const v = a.mean[key];
    if (best === null || v < best.value) best = { strategy: a.strategy, value: v };
  }
  return best;
}
