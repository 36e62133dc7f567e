import { extname } from "node:path";
import type { ChartFormat } from "./render-chart.js";

/** The chart format a file name asks for by its extension (`.svg`, `.png`, any case), or null for anything else. */
export function chartFormatOf(file: string): ChartFormat | null {
  const ext = extname(file).toLowerCase();
  return ext === ".svg" ? "svg" : ext === ".png" ? "png" : null;
}
