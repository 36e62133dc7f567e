import { writeFile } from "node:fs/promises";
import { chartFormatOf } from "../chart/chart-format.js";
import type { ChartData, ChartDataOptions } from "../chart/chart-types.js";
import { type ChartFormat, renderChartSvg, renderRolloutChart, svgToPng } from "../chart/render-chart.js";
import type { RolloutState } from "../core/rollout/rollout-state.js";
import type { CliIo } from "./command.js";
import { oneLine } from "./one-line.js";

/** Where `--chart FILE` writes a rollout's timeline chart, and in which format (from the file's extension). */
export interface ChartTarget {
  readonly file: string;
  readonly format: ChartFormat;
}

/** `--chart FILE`, checked: null when not given, a usage message when the extension is neither .svg nor .png. */
export function parseChartFlag(
  value: unknown,
):
  | { readonly kind: "ok"; readonly chart: ChartTarget | null }
  | { readonly kind: "usage"; readonly message: string } {
  if (value === undefined) return { kind: "ok", chart: null };
  const file = String(value);
  const format = chartFormatOf(file);
  if (format === null)
    return { kind: "usage", message: `--chart must name a .svg or .png file (got ${JSON.stringify(file)})` };
  return { kind: "ok", chart: { file, format } };
}

/**
 * Draws the rollout's chart into the file. Never throws: a chart that cannot be written is one line on stderr and
 * leaves the command's outcome as it was. Returns whether it was written.
 */
export async function writeChartFile(
  io: CliIo,
  command: string,
  chart: ChartTarget,
  state: RolloutState,
  options: ChartDataOptions,
): Promise<boolean> {
  return writeBytes(io, command, chart, () => renderRolloutChart(state, chart.format, options));
}

/** Draws a chart's data (a fleet run's) into the file; as writeChartFile, never throws. */
export function writeChartDataFile(
  io: CliIo,
  command: string,
  chart: ChartTarget,
  data: ChartData,
): Promise<boolean> {
  return writeBytes(io, command, chart, () => {
    const svg = renderChartSvg(data);
    return chart.format === "svg" ? Buffer.from(svg, "utf8") : svgToPng(svg);
  });
}

async function writeBytes(
  io: CliIo,
  command: string,
  chart: ChartTarget,
  draw: () => Buffer,
): Promise<boolean> {
  try {
    await writeFile(chart.file, draw());
    io.stderr.write(`connect-roll ${command}: chart written to ${chart.file}\n`);
    return true;
  } catch (e) {
    io.stderr.write(
      `connect-roll ${command}: could not write the chart to ${chart.file}: ${oneLine(e instanceof Error ? e.message : String(e))}\n`,
    );
    return false;
  }
}
