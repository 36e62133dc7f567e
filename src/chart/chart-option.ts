import type { EChartsOption, SeriesOption } from "echarts";
import type { CustomSeriesRenderItem } from "echarts/types/dist/shared";
import { CHART_COLORS, CHART_FONT } from "./chart-palette.js";
import type { ChartData, SegmentKind } from "./chart-types.js";

/** The picture's size: wide enough for a long rollout, lanes as tall as the worker count allows. */
export interface ChartLayout {
  readonly width: number;
  readonly height: number;
}

const WIDTH = 1200;
const TOP = 112;
const SHARE_HEIGHT = 150;
const GAP = 56;
const BOTTOM = 84;
const LEFT = 168;
const RIGHT = 36;

/** Lane height: roomy for a dozen workers, thinner for hundreds (the lanes' block stays under ~1000 px). */
function laneHeight(lanes: number): number {
  if (lanes <= 16) return 30;
  return Math.max(5, Math.min(30, Math.floor(960 / lanes)));
}

export function chartLayout(data: ChartData): ChartLayout {
  const lanes = Math.max(1, data.lanes.length) * laneHeight(data.lanes.length);
  return { width: WIDTH, height: TOP + lanes + GAP + SHARE_HEIGHT + BOTTOM };
}

const SEGMENTS: readonly { kind: SegmentKind; name: string; color: string; border: string | null }[] = [
  { kind: "down", name: "down (restarting)", color: CHART_COLORS.down, border: null },
  {
    kind: "settling",
    name: "back on target, settling",
    color: CHART_COLORS.settling,
    border: CHART_COLORS.settlingBorder,
  },
  { kind: "on-target", name: "settled on target", color: CHART_COLORS.onTarget, border: null },
];

/** The ECharts option drawing `data`: the lanes above, the share of tasks not running (and not flowing) below. */
export function chartOption(data: ChartData): EChartsOption {
  const laneH = laneHeight(data.lanes.length);
  const lanesHeight = Math.max(1, data.lanes.length) * laneH;
  const shareTop = TOP + lanesHeight + GAP;
  const seconds = (ms: number) => ms / 1000;
  const span = seconds(data.spanMs);
  const textStyle = { fontFamily: CHART_FONT, color: CHART_COLORS.text, fontSize: 14 };
  const timeAxis = (gridIndex: number, labels: boolean) => ({
    type: "value" as const,
    gridIndex,
    min: 0,
    max: span,
    splitLine: { lineStyle: { color: CHART_COLORS.grid } },
    axisLabel: {
      show: labels,
      formatter: (v: number) => clock(v),
      fontSize: 13,
      color: CHART_COLORS.mutedText,
    },
    ...(labels
      ? {
          name: "time since start",
          nameLocation: "middle" as const,
          nameGap: 28,
          nameTextStyle: { fontSize: 13, color: CHART_COLORS.mutedText },
        }
      : {}),
  });
  const labelEvery = laneH >= 12 ? 0 : Math.ceil(12 / laneH) - 1;

  const laneSeries: SeriesOption[] = SEGMENTS.map((seg) => ({
    type: "custom",
    name: seg.name,
    xAxisIndex: 0,
    yAxisIndex: 0,
    color: seg.color,
    renderItem: segmentRenderer(seg.color, seg.border, laneH),
    encode: { x: [0, 1], y: 2 },
    data: data.lanes.flatMap((lane, i) =>
      lane.segments.filter((s) => s.kind === seg.kind).map((s) => [seconds(s.from), seconds(s.to), i]),
    ),
    silent: true,
    animation: false,
  }));

  const overlay = (name: string, color: string, extra: Record<string, unknown>): SeriesOption =>
    ({
      type: "line",
      name,
      xAxisIndex: 0,
      yAxisIndex: 0,
      data: [],
      color,
      symbol: "none",
      animation: false,
      ...extra,
    }) as SeriesOption;

  const windowArea = (kind: "eager" | "pace", color: string) => ({
    silent: true,
    itemStyle: { color },
    label: { show: true, position: "insideTopLeft" as const, fontSize: 12, color: CHART_COLORS.mutedText },
    data: data.windows
      .filter((w) => w.kind === kind)
      .map((w) => [{ xAxis: seconds(w.from), name: `${kind} window` }, { xAxis: seconds(w.to) }]),
  });

  const series: SeriesOption[] = [
    overlay("eager window", CHART_COLORS.eagerWindow, {
      markArea: windowArea("eager", CHART_COLORS.eagerWindow),
    }),
    overlay("pace window", CHART_COLORS.paceWindow, {
      markArea: windowArea("pace", CHART_COLORS.paceWindow),
    }),
    ...laneSeries,
    overlay("delay deadline", CHART_COLORS.deadline, {
      markLine: {
        silent: true,
        symbol: "none",
        lineStyle: { color: CHART_COLORS.deadline, type: "dashed", width: 1.5 },
        label: { show: false },
        data: data.deadlines.map((d) => ({ xAxis: seconds(d.at) })),
      },
    }),
    overlay("approval", CHART_COLORS.approval, {
      markLine: {
        silent: true,
        symbol: "none",
        lineStyle: { color: CHART_COLORS.approval, type: "solid", width: 2 },
        label: { show: true, position: "end", fontSize: 13, color: CHART_COLORS.approval, formatter: "{b}" },
        data: data.approvals.map((a) => ({
          xAxis: seconds(a.at),
          name:
            a.decision === null
              ? `${a.kind} asked ${clock(seconds(a.at))}, waiting`
              : `${a.kind}: ${a.decision} · ${a.by ?? "?"} · ${clock(seconds(a.at))}`,
        })),
      },
    }),
    {
      type: "line",
      name: "tasks not running",
      xAxisIndex: 1,
      yAxisIndex: 1,
      step: "end",
      symbol: "none",
      color: CHART_COLORS.notRunning,
      lineStyle: { width: 2 },
      areaStyle: { opacity: 0.25 },
      data: data.share.map((p) => [seconds(p.at), p.down * 100]),
      markLine: {
        silent: true,
        symbol: "none",
        lineStyle: { color: CHART_COLORS.stepStart, type: "dotted", width: 1 },
        label: {
          show: data.stepStarts.length <= 24,
          position: "end",
          fontSize: 11,
          color: CHART_COLORS.mutedText,
          formatter: "{b}",
        },
        data: data.stepStarts.map((s) => ({ xAxis: seconds(s.at), name: `${s.step}` })),
      },
      animation: false,
    },
  ];
  if (data.flowVisible)
    series.push({
      type: "line",
      name: "tasks not flowing",
      xAxisIndex: 1,
      yAxisIndex: 1,
      step: "end",
      symbol: "none",
      color: CHART_COLORS.notFlowing,
      lineStyle: { width: 2, type: "dashed" },
      data: data.share.flatMap((p) => (p.notFlowing === null ? [] : [[seconds(p.at), p.notFlowing * 100]])),
      animation: false,
    });

  return {
    backgroundColor: CHART_COLORS.background,
    textStyle,
    animation: false,
    title: {
      text: data.title,
      subtext: data.subtitle,
      left: 16,
      top: 10,
      textStyle: { fontSize: 22, fontWeight: "bold", color: CHART_COLORS.text, fontFamily: CHART_FONT },
      subtextStyle: { fontSize: 14, color: CHART_COLORS.mutedText, fontFamily: CHART_FONT },
    },
    legend: {
      bottom: 8,
      left: "center",
      itemGap: 18,
      itemWidth: 18,
      itemHeight: 12,
      textStyle: { fontSize: 13, color: CHART_COLORS.text, fontFamily: CHART_FONT },
      data: [
        ...SEGMENTS.map((s) => s.name),
        ...(data.windows.some((w) => w.kind === "eager") ? ["eager window"] : []),
        ...(data.windows.some((w) => w.kind === "pace") ? ["pace window"] : []),
        ...(data.deadlines.length > 0 ? ["delay deadline"] : []),
        ...(data.approvals.length > 0 ? ["approval"] : []),
        "tasks not running",
        ...(data.flowVisible ? ["tasks not flowing"] : []),
      ],
    },
    grid: [
      { left: LEFT, right: RIGHT, top: TOP, height: lanesHeight },
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
          interval: labelEvery,
          fontSize: laneH >= 20 ? 13 : 11,
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
        nameTextStyle: { fontSize: 13, color: CHART_COLORS.mutedText, align: "right" },
        axisLabel: { formatter: "{value}%", fontSize: 12, color: CHART_COLORS.mutedText },
        splitLine: { lineStyle: { color: CHART_COLORS.grid } },
      },
    ],
    series,
  } as EChartsOption;
}

/** A lane's segment: a bar from its start to its end, across most of the lane's height. */
function segmentRenderer(color: string, border: string | null, laneH: number): CustomSeriesRenderItem {
  return (_params, api) => {
    const from = api.coord([api.value(0), api.value(2)]);
    const to = api.coord([api.value(1), api.value(2)]);
    const height = Math.max(2, laneH * 0.62);
    const x = from[0] ?? 0;
    const y = (from[1] ?? 0) - height / 2;
    return {
      type: "rect",
      shape: { x, y, width: Math.max(1, (to[0] ?? 0) - x), height },
      style: { fill: color, ...(border === null ? {} : { stroke: border, lineWidth: 1 }) },
    };
  };
}

/** Seconds since the start as m:ss (h:mm:ss past an hour). */
export function clock(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = (s % 60).toString().padStart(2, "0");
  return h > 0 ? `${h}:${m.toString().padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}
