import type { EChartsOption } from "echarts";
import { CHART_COLORS, CHART_FONT, OKABE_ITO } from "../../src/chart/chart-palette.js";
import { renderOptionSvg } from "../../src/chart/render-chart.js";
import type { Row } from "./run-fidelity.js";

/** A timing the fidelity run compared: the simulator's value, the lab's, and the tolerance they must agree within. */
export interface TimingPoint {
  readonly label: string;
  readonly simMs: number;
  readonly realMs: number;
  readonly toleranceMs: number;
  readonly verdict: Row["verdict"];
}

/** The rows that are timings ("… (ms)") with a number on both sides, in the run's order. */
export function timingPoints(rows: readonly Row[]): TimingPoint[] {
  return rows.flatMap((r) =>
    /\(ms\)$/.test(r.observation) && typeof r.sim === "number" && typeof r.real === "number"
      ? [
          {
            label: `${r.version} ${r.scenario}: ${r.observation.replace(/ \(ms\)$/, "")}`,
            simMs: r.sim,
            realMs: r.real,
            toleranceMs: r.tolerance ?? 0,
            verdict: r.verdict,
          },
        ]
      : [],
  );
}

const VERDICT_COLORS: Readonly<Record<Row["verdict"], string>> = {
  agrees: OKABE_ITO.bluishGreen,
  known: OKABE_ITO.orange,
  differs: OKABE_ITO.vermillion,
};

/** One line per timing: the tolerance band around the simulator's value, the simulator hollow, the lab filled. */
export function fidelityOption(points: readonly TimingPoint[], subtitle: string): EChartsOption {
  const labels = points.map((p) => p.label);
  const sec = (ms: number) => ms / 1000;
  const text = { fontSize: 14, color: CHART_COLORS.text, fontFamily: CHART_FONT };
  return {
    backgroundColor: CHART_COLORS.background,
    animation: false,
    textStyle: { fontFamily: CHART_FONT, color: CHART_COLORS.text },
    title: {
      text: "The simulator against real Kafka Connect: timings",
      subtext: subtitle,
      left: 16,
      top: 10,
      textStyle: { fontSize: 24, fontWeight: "bold", color: CHART_COLORS.text, fontFamily: CHART_FONT },
      subtextStyle: { fontSize: 14, color: CHART_COLORS.mutedText, fontFamily: CHART_FONT },
    },
    legend: {
      bottom: 8,
      left: 16,
      textStyle: text,
      data: ["tolerance", "simulator", "lab: agrees", "lab: known difference", "lab: differs"],
    },
    grid: { left: 520, right: 40, top: 90, bottom: 70 },
    xAxis: {
      type: "value",
      name: "seconds",
      nameLocation: "middle",
      nameGap: 28,
      nameTextStyle: text,
      axisLabel: text,
      splitLine: { lineStyle: { color: CHART_COLORS.grid } },
    },
    yAxis: { type: "category", data: labels, inverse: true, axisLabel: { ...text, fontSize: 13 } },
    series: [
      // The tolerance as a thick segment per timing (one series each; the legend shows the name once).
      ...points.map((p, i) => ({
        type: "line" as const,
        name: "tolerance",
        silent: true,
        symbol: "none",
        lineStyle: { width: 12, color: "rgba(86, 180, 233, 0.35)" },
        itemStyle: { color: "rgba(86, 180, 233, 0.35)" },
        data: [
          [sec(Math.max(0, p.simMs - p.toleranceMs)), i],
          [sec(p.simMs + p.toleranceMs), i],
        ],
      })),
      {
        type: "scatter",
        name: "simulator",
        symbol: "emptyCircle",
        symbolSize: 14,
        itemStyle: { color: OKABE_ITO.blue, borderWidth: 2.5 },
        data: points.map((p, i) => [sec(p.simMs), i]),
      },
      ...(["agrees", "known", "differs"] as const).map((verdict) => ({
        type: "scatter" as const,
        name: `lab: ${verdict === "known" ? "known difference" : verdict}`,
        symbolSize: 12,
        itemStyle: { color: VERDICT_COLORS[verdict] },
        data: points.flatMap((p, i) => (p.verdict === verdict ? [[sec(p.realMs), i]] : [])),
      })),
    ],
  } as EChartsOption;
}

export function fidelityChartSvg(rows: readonly Row[], subtitle: string): string {
  const points = timingPoints(rows);
  return renderOptionSvg(fidelityOption(points, subtitle), {
    width: 1100,
    height: 170 + 30 * Math.max(1, points.length),
  });
}
