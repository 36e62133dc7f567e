import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EChartsOption } from "echarts";
import { CHART_COLORS, CHART_FONT, OKABE_ITO } from "../../src/chart/chart-palette.js";
import { renderOptionSvg, svgToPng } from "../../src/chart/render-chart.js";
import { formatDuration } from "../../src/core/format-duration.js";
import { floorFigures } from "../metrics.js";
import type { RunResult, StrategyId } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import { aggregatesOf, STRATEGY_LABELS } from "../table.js";

/**
 * The benchmark's frontier, one picture per scenario: each strategy's wall time against the Σ of its tasks' data-flow
 * gaps (means over the seeds), the per-figure floor, and the strategies no other beats on both (the frontier line).
 * In the simulator a task moves data exactly while it runs, so its data gap is its downtime (`down Σ` in the table).
 */
export interface FrontierPoint {
  readonly strategy: StrategyId;
  readonly label: string;
  readonly wallMs: number;
  readonly gapMs: number;
  /** The largest share of tasks down at once (0–1): what a fast point may pay for its speed. */
  readonly peakShare: number;
  /** A simulated point drawn beside real ones (hollow, "(sim)"); absent: the chart's only kind. */
  readonly simulated?: boolean;
}

export interface FrontierData {
  readonly title: string;
  readonly subtitle: string;
  readonly points: readonly FrontierPoint[];
  readonly floor: { readonly wallMs: number; readonly gapMs: number } | null;
  /** The points no other point beats on both figures, by wall time. */
  readonly frontier: readonly FrontierPoint[];
}

export function frontierData(
  scenario: Scenario,
  seeds: readonly number[],
  runs: readonly RunResult[],
): FrontierData {
  const order = [...new Set(runs.map((r) => r.strategy))];
  const points = aggregatesOf(runs, order).flatMap((a) =>
    a.mean === null
      ? []
      : [
          {
            strategy: a.strategy,
            label: STRATEGY_LABELS[a.strategy],
            wallMs: a.mean.wall,
            gapMs: a.mean.downSum,
            peakShare: a.mean.peakShare,
          },
        ],
  );
  const floor = floorFigures(scenario);
  return {
    title: `(${scenario.id}) wall time against Σ data gap`,
    subtitle: `${scenario.title} · simulator, mean of seed${seeds.length === 1 ? "" : "s"} ${seeds.join(", ")}`,
    points,
    floor:
      floor.wall === null || floor.downSum === null ? null : { wallMs: floor.wall, gapMs: floor.downSum },
    frontier: paretoFrontier(points),
  };
}

/** The points not beaten on both figures by another (lower is better on each), ordered by wall time. */
export function paretoFrontier(points: readonly FrontierPoint[]): FrontierPoint[] {
  const beaten = (p: FrontierPoint) =>
    points.some(
      (q) =>
        q !== p && q.wallMs <= p.wallMs && q.gapMs <= p.gapMs && (q.wallMs < p.wallMs || q.gapMs < p.gapMs),
    );
  return points.filter((p) => !beaten(p)).sort((a, b) => a.wallMs - b.wallMs);
}

const STRATEGY_COLORS: Readonly<Record<StrategyId, string>> = {
  "connect-roll": OKABE_ITO.blue,
  "connect-roll-window": OKABE_ITO.bluishGreen,
  "connect-roll-rotate": CHART_COLORS.settlingBorder,
  "leader-rotation": OKABE_ITO.yellow,
  "leader-rotation-pipelined": CHART_COLORS.stepStart,
  deployment: OKABE_ITO.orange,
  strimzi: OKABE_ITO.skyBlue,
  "statefulset-tasks-ready": OKABE_ITO.reddishPurple,
  "all-at-once": OKABE_ITO.vermillion,
};

/** The legend's rows (two entries a row at this width): the plot is drawn above them. */
function legendRows(data: FrontierData): number {
  return Math.ceil((data.points.length + (data.floor === null ? 0 : 1)) / 2);
}

/** The picture's size: the plot keeps its height, the legend below it grows with the points. */
export function frontierSize(data: FrontierData): { width: number; height: number } {
  return { width: 1000, height: 560 + 30 * legendRows(data) };
}
const FLOOR = "floor (per-figure bound)";

/** A strategy's legend entry carries its figures: the points may sit close together. */
function legendName(p: FrontierPoint): string {
  return `${p.label}${p.simulated === true ? " (sim)" : ""}: ${formatDuration(p.wallMs)}, Σ ${formatDuration(p.gapMs)}, peak ${Math.round(p.peakShare * 100)} %`;
}

export function frontierOption(data: FrontierData): EChartsOption {
  const minutes = (ms: number) => ms / 60_000;
  const hours = (ms: number) => ms / 3_600_000;
  const axisText = { fontSize: 15, color: CHART_COLORS.mutedText, fontFamily: CHART_FONT };
  return {
    backgroundColor: CHART_COLORS.background,
    animation: false,
    textStyle: { fontFamily: CHART_FONT, color: CHART_COLORS.text },
    title: {
      text: data.title,
      subtext: data.subtitle,
      left: 16,
      top: 10,
      textStyle: { fontSize: 26, fontWeight: "bold", color: CHART_COLORS.text, fontFamily: CHART_FONT },
      subtextStyle: { fontSize: 15, color: CHART_COLORS.mutedText, fontFamily: CHART_FONT },
    },
    grid: { left: 96, right: 48, top: 100, bottom: 80 + 30 * legendRows(data) },
    legend: {
      bottom: 8,
      left: 96,
      right: 48,
      orient: "horizontal",
      itemGap: 14,
      itemWidth: 18,
      itemHeight: 14,
      textStyle: { fontSize: 15, color: CHART_COLORS.text, fontFamily: CHART_FONT },
      data: [...data.points.map((p) => legendName(p)), ...(data.floor === null ? [] : [FLOOR])],
    },
    xAxis: {
      type: "log",
      logBase: 10,
      name: "wall time (minutes, log scale)",
      nameLocation: "middle",
      nameGap: 34,
      nameTextStyle: axisText,
      axisLabel: axisText,
      splitLine: { lineStyle: { color: CHART_COLORS.grid } },
    },
    yAxis: {
      type: "log",
      logBase: 10,
      name: "Σ data gap (task·hours, log)",
      nameLocation: "middle",
      nameGap: 56,
      nameTextStyle: axisText,
      axisLabel: axisText,
      splitLine: { lineStyle: { color: CHART_COLORS.grid } },
    },
    series: [
      {
        type: "line",
        name: "frontier",
        data: data.frontier.map((p) => [minutes(p.wallMs), hours(p.gapMs)]),
        symbol: "none",
        lineStyle: { color: CHART_COLORS.stepStart, type: "dashed", width: 2 },
        silent: true,
      },
      ...data.points.map((p) => ({
        type: "scatter" as const,
        name: legendName(p),
        data: [[minutes(p.wallMs), hours(p.gapMs)]],
        ...(p.simulated === true
          ? {
              symbol: "emptyCircle",
              symbolSize: 16,
              itemStyle: {
                color: STRATEGY_COLORS[p.strategy],
                borderColor: STRATEGY_COLORS[p.strategy],
                borderWidth: 3,
              },
            }
          : {
              symbolSize: 20,
              itemStyle: {
                color: STRATEGY_COLORS[p.strategy],
                borderColor: "#FFFFFF",
                borderWidth: 1.5,
                opacity: 0.9,
              },
            }),
      })),
      ...(data.floor === null
        ? []
        : [
            {
              type: "scatter" as const,
              name: FLOOR,
              data: [[minutes(data.floor.wallMs), hours(data.floor.gapMs)]],
              symbol: "diamond",
              symbolSize: 16,
              itemStyle: { color: OKABE_ITO.black },
            },
          ]),
    ],
  } as EChartsOption;
}

/** `--chart DIR`: the scenario's frontier as `frontier-<id>.svg` and `.png`. */
export function writeFrontierChart(dir: string, data: FrontierData, id: string): string[] {
  mkdirSync(dir, { recursive: true });
  const svg = renderOptionSvg(frontierOption(data), frontierSize(data));
  const files = [join(dir, `frontier-${id}.svg`), join(dir, `frontier-${id}.png`)];
  writeFileSync(files[0] ?? "", svg);
  writeFileSync(files[1] ?? "", svgToPng(svg));
  return files;
}
