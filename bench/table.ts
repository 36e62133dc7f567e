import { formatDuration } from "../src/core/format-duration.js";
import {
  aggregate,
  bestOther,
  FIGURE_KEYS,
  type FigureKey,
  floorFigures,
  ratio,
  type StrategyAggregate,
} from "./metrics.js";
import type { RunResult, StrategyId } from "./run-types.js";
import type { Scenario } from "./scenarios.js";
import { DEPLOYMENT_NOTE } from "./strategies/deployment.js";
import { STRIMZI_NOTE } from "./strategies/strimzi.js";

/** The printed table of one scenario: figures (mean over seeds), floor, ratios, the bot's own cost. */
export const STRATEGY_LABELS: Readonly<Record<StrategyId, string>> = {
  "connect-roll": "connect-roll (safe)",
  "connect-roll-window": "connect-roll (window)",
  "connect-roll-rotate": "connect-roll (rotate)",
  "leader-rotation": "leader rotation",
  "leader-rotation-pipelined": "leader rotation (pipelined)",
  strimzi: "Strimzi roller †",
  "statefulset-tasks-ready": "StatefulSet, tasks ready",
  deployment: "Deployment 25%/25% *",
  "all-at-once": "all at once",
};

const HEADERS: Readonly<Record<FigureKey, string>> = {
  wall: "wall",
  downSum: "down Σ",
  downP50: "p50",
  downP99: "p99",
  downMax: "max",
  moves: "moves",
  interruptions: "intr",
  rebalances: "rebal",
  eagerRebalances: "eager",
  peakShare: "peak",
};

const TIME_KEYS = new Set<FigureKey>(["wall", "downSum", "downP50", "downP99", "downMax"]);

export function formatFigure(key: FigureKey, value: number | null): string {
  if (value === null) return "—";
  if (key === "peakShare") return `${(value * 100).toFixed(1)}%`;
  if (TIME_KEYS.has(key)) return formatDuration(value);
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

export function formatRatio(r: number | null): string {
  if (r === null) return "—";
  if (!Number.isFinite(r)) return "∞";
  return r >= 100 ? `${Math.round(r)}×` : `${r.toFixed(2)}×`;
}

function grid(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

export function aggregatesOf(runs: readonly RunResult[], order: readonly StrategyId[]): StrategyAggregate[] {
  return order.map((id) =>
    aggregate(
      id,
      runs.filter((r) => r.strategy === id),
    ),
  );
}

function leaderColumn(runs: readonly RunResult[], workers: number): string {
  const positions = runs.map((r) => (r.leaderPosition === null ? "all" : `${r.leaderPosition}`));
  return positions.length === 0 ? "—" : `${positions.join(",")}/${workers}`;
}

export function renderScenario(
  scenario: Scenario,
  seeds: readonly number[],
  runs: readonly RunResult[],
  order: readonly StrategyId[],
): string {
  const aggs = aggregatesOf(runs, order);
  const floor = floorFigures(scenario);
  const out: string[] = [];
  out.push(`(${scenario.id}) ${scenario.title}`);
  out.push(`    seeds ${seeds.join(", ")}; figures are means over the seeds`);
  out.push("");
  const head = ["strategy", ...FIGURE_KEYS.map((k) => HEADERS[k]), "leader@", "fol. mv/intr"];
  const rows: string[][] = [head];
  const missing: string[] = [];
  for (const a of aggs) {
    const own = runs.filter((r) => r.strategy === a.strategy);
    if (a.mean === null) {
      missing.push(`    ${STRATEGY_LABELS[a.strategy]}: ${own[0]?.note ?? "no figures"}`);
      continue;
    }
    const mean = a.mean;
    const fol = own.flatMap((r) => (r.followerSteps ? [r.followerSteps] : []));
    const folText = a.strategy.startsWith("connect-roll")
      ? `${Math.max(...fol.map((f) => f.moves))}/${Math.max(...fol.map((f) => f.interruptions))}`
      : "";
    rows.push([
      STRATEGY_LABELS[a.strategy],
      ...FIGURE_KEYS.map((k) => formatFigure(k, mean[k])),
      leaderColumn(own, scenario.sim.workers),
      folText,
    ]);
  }
  rows.push(["floor (per-figure bound)", ...FIGURE_KEYS.map((k) => formatFigure(k, floor[k])), "", ""]);
  out.push(...grid(rows).map((l) => `    ${l}`));
  out.push(...missing);
  out.push("");
  const ratioRows: string[][] = [["× floor / × best other", ...FIGURE_KEYS.map((k) => HEADERS[k])]];
  for (const a of aggs) {
    const mean = a.mean;
    if (mean === null) continue;
    ratioRows.push([
      `${STRATEGY_LABELS[a.strategy]} × floor`,
      ...FIGURE_KEYS.map((k) => formatRatio(ratio(mean[k], floor[k]))),
    ]);
    ratioRows.push([
      `${STRATEGY_LABELS[a.strategy]} × best other`,
      ...FIGURE_KEYS.map((k) => formatRatio(ratio(mean[k], bestOther(aggs, a.strategy, k)?.value ?? null))),
    ]);
  }
  out.push(...grid(ratioRows).map((l) => `    ${l}`));
  const ss = aggs.find((a) => a.strategy === "strimzi")?.mean ?? null;
  if (ss !== null) {
    out.push("");
    const ssRows: string[][] = [["× Strimzi roller", ...FIGURE_KEYS.map((k) => HEADERS[k])]];
    for (const a of aggs) {
      const mean = a.mean;
      if (mean === null || a.strategy === "strimzi") continue;
      ssRows.push([
        STRATEGY_LABELS[a.strategy],
        ...FIGURE_KEYS.map((k) => formatRatio(ratio(mean[k], ss[k]))),
      ]);
    }
    out.push(...grid(ssRows).map((l) => `    ${l}`));
  }
  const bots = runs.filter((r) => r.bot !== null);
  if (bots.length > 0) {
    out.push("");
    const botRows: string[][] = [
      ["bot cost", "steps", "polls/step", "probes/step", "HTTP/step", "CPU ms/step", "RSS MiB"],
    ];
    for (const id of order) {
      const own = bots.flatMap((r) => (r.strategy === id && r.bot ? [r.bot] : []));
      if (own.length === 0) continue;
      const mean = (f: (b: (typeof own)[number]) => number) => own.reduce((s, b) => s + f(b), 0) / own.length;
      botRows.push([
        STRATEGY_LABELS[id],
        mean((b) => b.steps).toFixed(0),
        mean((b) => b.polls / b.steps).toFixed(1),
        mean((b) => (b.probes ?? 0) / b.steps).toFixed(1),
        mean((b) => b.httpCalls / b.steps).toFixed(1),
        mean((b) => b.cpuMs / b.steps).toFixed(1),
        mean((b) => b.rssMiB).toFixed(0),
      ]);
    }
    out.push(...grid(botRows).map((l) => `    ${l}`));
  }
  const unsettled = runs.filter((r) => r.figures !== null && !r.figures.settled);
  if (unsettled.length > 0) {
    out.push(`    ! did not settle: ${unsettled.map((r) => `${r.strategy} seed ${r.seed}`).join(", ")}`);
  }
  return out.join("\n");
}

export const FOOTNOTES: readonly string[] = [
  "wall: first restart → cluster settled (every task RUNNING on a live worker, no rebalance or delay pending).",
  "down Σ / p50 / p99 / max: per-task time not RUNNING (simulator ledger), summed and its percentiles over tasks.",
  "moves: a task RUNNING again on another worker; intr: a RUNNING task stopped on a worker that stayed up;",
  "rebal / eager: completed rebalances / stop-the-world ones; peak: largest share of tasks down at one instant.",
  "leader@: position of the starting leader in the order the workers went down, per seed ('all' = all at once).",
  "fol. mv/intr: connect-roll only, worst seed: moves / interruptions before the leader's step (follower steps).",
  "floor: per-figure lower bounds, not one rollout: each task down only for its worker's restart + join + task",
  "  start, nothing moved or interrupted; wall = one restart (all in parallel); peak = one worker's share.",
  "  × floor below 1.00: tasks failed over to survivors faster than their worker restarted (paid in moves and",
  "  interruptions), or restarts drew a jitter below the nominal restart time.",
  "× best other: this mean over the best mean of the other strategies (1.00× = tie, <1 = better, ∞ = x/0).",
  `* ${DEPLOYMENT_NOTE}`,
  `† ${STRIMZI_NOTE}`,
];
