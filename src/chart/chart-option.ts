import type { EChartsOption } from "echarts";
import { CHART_COLORS, CHART_FONT } from "./chart-palette.js";
import {
  approvalSeries,
  clock,
  deadlineSeries,
  ICON_BAR,
  ICON_DASHED,
  laneSeries,
  SEGMENTS,
  shareSeries,
  visibleDeadlines,
  windowSeries,
} from "./chart-series.js";
import type { ChartData } from "./chart-types.js";

/** The picture's size: wide enough for a long rollout, lanes as tall as the worker count allows. */
export interface ChartLayout {
  readonly width: number;
  readonly height: number;
}

const WIDTH = 1000;
/** Title and subtitle; with approvals, room above the lanes for their labels. */
const TOP = 96;
const TOP_WITH_APPROVALS = 124;
const SHARE_HEIGHT = 160;
const GAP = 76;
const BOTTOM = 96;
const LEFT = 200;
const RIGHT = 40;

/** Lane height: roomy for a dozen workers, thinner for hundreds (the lanes' block stays under ~1000 px). */
function laneHeight(lanes: number): number {
  if (lanes <= 16) return 32;
  return Math.max(5, Math.min(32, Math.floor(960 / lanes)));
}

function topOf(data: ChartData): number {
  return data.approvals.length > 0 ? TOP_WITH_APPROVALS : TOP;
}

export function chartLayout(data: ChartData): ChartLayout {
  const lanes = Math.max(1, data.lanes.length) * laneHeight(data.lanes.length);
  return { width: WIDTH, height: topOf(data) + lanes + GAP + SHARE_HEIGHT + BOTTOM };
}

/** The ECharts option drawing `data`: the lanes above, the share of tasks not running (and not flowing) below. */
export function chartOption(data: ChartData): EChartsOption {
  const laneH = laneHeight(data.lanes.length);
  const top = topOf(data);
  const lanesHeight = Math.max(1, data.lanes.length) * laneH;
  const span = data.spanMs / 1000;
  const shareTop = top + lanesHeight + GAP;
  const legendStyle = {
    itemGap: 18,
    itemWidth: 24,
    itemHeight: 14,
    textStyle: { fontSize: 16, color: CHART_COLORS.text, fontFamily: CHART_FONT },
  };
  const muted = { color: CHART_COLORS.mutedText, fontFamily: CHART_FONT };
  const timeAxis = (gridIndex: number, labels: boolean) => ({
    type: "value" as const,
    gridIndex,
    min: 0,
    max: span,
    splitLine: { lineStyle: { color: CHART_COLORS.grid } },
    axisLabel: { show: labels, formatter: (v: number) => clock(v, span), fontSize: 16, ...muted },
    ...(labels
      ? {
          name: "time since start",
          nameLocation: "middle" as const,
          nameGap: 30,
          nameTextStyle: { fontSize: 15, ...muted },
        }
      : {}),
  });
  const labelEvery = laneH >= 14 ? 0 : Math.ceil(14 / laneH) - 1;
  const leaderAt = data.lanes.findIndex((l) => l.isLeader);
  // Every k-th worker when lanes are thin, and always the leader (the k-th labels too close above it give way).
  const showLaneLabel = (index: number) =>
    index === leaderAt ||
    (index % (labelEvery + 1) === 0 && !(leaderAt > index && leaderAt - index <= labelEvery));
  return {
    backgroundColor: CHART_COLORS.background,
    textStyle: { fontFamily: CHART_FONT, color: CHART_COLORS.text, fontSize: 15 },
    animation: false,
    title: {
      text: data.title,
      subtext: data.subtitle,
      left: 16,
      top: 10,
      textStyle: { fontSize: 28, fontWeight: "bold", color: CHART_COLORS.text, fontFamily: CHART_FONT },
      subtextStyle: { fontSize: 17, ...muted },
    },
    legend: [
      {
        bottom: 10,
        left: "center",
        ...legendStyle,
        data: [
          ...SEGMENTS.filter((s) => data.lanes.some((l) => l.segments.some((g) => g.kind === s.kind))).map(
            (s) => ({ name: s.name, icon: "rect" }),
          ),
          ...(data.windows.some((w) => w.kind === "eager") ? [{ name: "eager window", icon: "rect" }] : []),
          ...(data.windows.some((w) => w.kind === "pace") ? [{ name: "pace window", icon: "rect" }] : []),
          ...(visibleDeadlines(data).length > 0 ? [{ name: "delay deadline", icon: ICON_DASHED }] : []),
          ...(data.approvals.length > 0 ? [{ name: "approval", icon: ICON_BAR }] : []),
        ],
      },
      {
        // The share chart's own legend, above its top right corner.
        top: shareTop - 40,
        right: RIGHT,
        ...legendStyle,
        data: [
          { name: "tasks not running", icon: ICON_BAR },
          ...(data.flowVisible ? [{ name: "tasks not flowing", icon: ICON_DASHED }] : []),
        ],
      },
    ],
    grid: [
      { left: LEFT, right: RIGHT, top, height: lanesHeight },
      { left: LEFT, right: RIGHT, top: shareTop, height: SHARE_HEIGHT },
    ],
    xAxis: [timeAxis(0, false), timeAxis(1, true)],
    yAxis: [
      {
        type: "category",
        gridIndex: 0,
        inverse: true,
        data: data.lanes.map((l) => (l.isLeader ? `★ ${l.worker} (leader)` : l.worker)),
        axisTick: { show: false },
        axisLabel: {
          interval: 0,
          formatter: (name: string, index: number) => (showLaneLabel(index) ? name : ""),
          fontSize: laneH >= 24 ? 17 : 12,
          color: CHART_COLORS.text,
          width: LEFT - 16,
          overflow: "truncate",
        },
        splitLine: { show: false },
      },
      {
        type: "value",
        gridIndex: 1,
        min: 0,
        max: 100,
        interval: 25,
        name: "% of tasks",
        nameTextStyle: { fontSize: 16, align: "right", ...muted },
        axisLabel: { formatter: "{value}%", fontSize: 15, ...muted },
        splitLine: { lineStyle: { color: CHART_COLORS.grid } },
      },
    ],
    series: [
      windowSeries(data, "eager"),
      windowSeries(data, "pace"),
      ...laneSeries(data, laneH),
      deadlineSeries(data),
      approvalSeries(data),
      ...shareSeries(data),
    ],
  } as EChartsOption;
}
