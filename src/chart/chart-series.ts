import type { SeriesOption } from "echarts";
import type { CustomSeriesRenderItem } from "echarts/types/dist/shared";
import { CHART_COLORS } from "./chart-palette.js";
import type { ChartData, SegmentKind } from "./chart-types.js";

/** The series of the timeline: the lanes' segments and overlays (grid 0), the share of tasks (grid 1). */

export const SEGMENTS: readonly { kind: SegmentKind; name: string; color: string; border: string | null }[] =
  [
    { kind: "down", name: "restarting", color: CHART_COLORS.down, border: null },
    {
      kind: "settling",
      name: "back, settling",
      color: CHART_COLORS.settling,
      border: CHART_COLORS.settlingBorder,
    },
    { kind: "on-target", name: "settled on target", color: CHART_COLORS.onTarget, border: null },
  ];

/** Legend icons (legend items name them; a line series ignores its own): a bar for lines, a dashed bar for dashed ones. */
export const ICON_BAR = "path://M0,4h24v3h-24z";
export const ICON_DASHED = "path://M0,4h6v3h-6zM9,4h6v3h-6zM18,4h6v3h-6z";

const seconds = (ms: number) => ms / 1000;

export function laneSeries(data: ChartData, laneH: number): SeriesOption[] {
  return SEGMENTS.map((seg) => ({
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
}

/** A series with no data of its own, carrying a mark area or lines (so the legend names them). */
function overlay(name: string, color: string, extra: Record<string, unknown>): SeriesOption {
  return {
    type: "line",
    name,
    xAxisIndex: 0,
    yAxisIndex: 0,
    data: [],
    color,
    symbol: "none",
    animation: false,
    ...extra,
  } as SeriesOption;
}

export function windowSeries(data: ChartData, kind: "eager" | "pace"): SeriesOption {
  const fill = kind === "eager" ? CHART_COLORS.eagerWindow : CHART_COLORS.paceWindow;
  const border = kind === "eager" ? CHART_COLORS.eagerWindowBorder : CHART_COLORS.paceWindowBorder;
  return overlay(`${kind} window`, fill, {
    markArea: {
      silent: true,
      itemStyle: { color: fill, borderColor: border, borderWidth: 1, borderType: "dashed" },
      label: { show: false },
      data: data.windows
        .filter((w) => w.kind === kind)
        .map((w) => [{ xAxis: seconds(w.from) }, { xAxis: seconds(w.to) }]),
    },
  });
}

export function deadlineSeries(data: ChartData): SeriesOption {
  return overlay("delay deadline", CHART_COLORS.deadline, {
    markLine: {
      silent: true,
      symbol: "none",
      lineStyle: { color: CHART_COLORS.deadline, type: "dashed", width: 1.5 },
      label: { show: false },
      data: visibleDeadlines(data).map((d) => ({ xAxis: seconds(d.at) })),
    },
  });
}

/** The deadlines on the axis (a running rollout's next one may lie past its end). */
export function visibleDeadlines(data: ChartData): ChartData["deadlines"] {
  return data.deadlines.filter((d) => d.at <= data.spanMs);
}

export function approvalSeries(data: ChartData): SeriesOption {
  return overlay("approval", CHART_COLORS.approval, {
    markLine: {
      silent: true,
      symbol: "none",
      lineStyle: { color: CHART_COLORS.approval, type: "solid", width: 2.5 },
      label: { show: true, position: "start", fontSize: 15, color: CHART_COLORS.approval, formatter: "{b}" },
      data: data.approvals.map((a) => ({ xAxis: seconds(a.at), name: approvalLabel(a, data.spanMs) })),
    },
  });
}

export function approvalLabel(a: ChartData["approvals"][number], span: number): string {
  const at = clock(seconds(a.at), seconds(span));
  return a.decision === null
    ? `${a.kind} asked ${at}, waiting`
    : `${a.kind}: ${a.decision} · ${a.by ?? "?"} · ${at}`;
}

/**
 * At most this many step lines on the share chart, and this many of them numbered; beyond, every k-th step's, so they
 * stay lines (and numbers), not a wall.
 */
const MAX_STEP_LINES = 40;
const MAX_STEP_NUMBERS = 16;

export function shareSeries(data: ChartData): SeriesOption[] {
  const every = Math.ceil(data.stepStarts.length / MAX_STEP_LINES);
  const marked = data.stepStarts.filter((_, i) => i % every === 0);
  const numberEvery = Math.ceil(marked.length / MAX_STEP_NUMBERS);
  const series: SeriesOption[] = [
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
        label: { show: true, position: "end", fontSize: 13, color: CHART_COLORS.mutedText, formatter: "{b}" },
        data: marked.map((s, i) => ({
          xAxis: seconds(s.at),
          name: `${s.step}`,
          ...(i % numberEvery === 0 ? {} : { label: { show: false } }),
        })),
      },
      animation: false,
    } as SeriesOption,
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
      lineStyle: { width: 2.5, type: "dashed" },
      data: data.share.flatMap((p) => (p.notFlowing === null ? [] : [[seconds(p.at), p.notFlowing * 100]])),
      animation: false,
    } as SeriesOption);
  return series;
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
      style: { fill: color, ...(border === null || laneH < 12 ? {} : { stroke: border, lineWidth: 1 }) },
    };
  };
}

/**
 * Seconds since the start for people: m:ss (h:mm:ss past an hour); on an axis shorter than two minutes, seconds
 * (with a tenth below ten seconds), so close ticks do not read the same.
 */
export function clock(totalSeconds: number, spanSeconds = Number.POSITIVE_INFINITY): string {
  if (spanSeconds < 10) return `${(Math.round(Math.max(0, totalSeconds) * 10) / 10).toString()}s`;
  const s = Math.max(0, Math.round(totalSeconds));
  if (spanSeconds < 120) return `${s}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = (s % 60).toString().padStart(2, "0");
  return h > 0 ? `${h}:${m.toString().padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}
