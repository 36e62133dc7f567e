import { Resvg } from "@resvg/resvg-js";
import type { EChartsOption } from "echarts";
import { CustomChart, LineChart, ScatterChart } from "echarts/charts";
import {
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TitleComponent,
} from "echarts/components";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";
import type { RolloutState } from "../core/rollout/rollout-state.js";
import { buildChartData } from "./chart-data.js";
import { chartLayout, chartOption } from "./chart-option.js";
import type { ChartData, ChartDataOptions } from "./chart-types.js";

echarts.use([
  CustomChart,
  LineChart,
  ScatterChart,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TitleComponent,
  SVGRenderer,
]);

export type ChartFormat = "svg" | "png";

/** An ECharts option drawn as an SVG document, server-side (no DOM). */
export function renderOptionSvg(option: EChartsOption, size: { width: number; height: number }): string {
  const chart = echarts.init(null, null, {
    renderer: "svg",
    ssr: true,
    width: size.width,
    height: size.height,
  });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** An SVG document as PNG bytes, at its own size (with the system's fonts: the text needs one, DejaVu on Debian). */
export function svgToPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    background: "#FFFFFF",
    font: { loadSystemFonts: true, defaultFontFamily: "Liberation Sans" },
  });
  return resvg.render().asPng();
}

/** A rollout's timeline chart as SVG. */
export function renderChartSvg(data: ChartData): string {
  return renderOptionSvg(chartOption(data), chartLayout(data));
}

/** A rollout's timeline chart, from its state (finished or running), as SVG text or PNG bytes. */
export function renderRolloutChart(
  state: RolloutState,
  format: ChartFormat,
  options: ChartDataOptions = {},
): Buffer {
  const svg = renderChartSvg(buildChartData(state, options));
  return format === "svg" ? Buffer.from(svg, "utf8") : svgToPng(svg);
}
