import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { buildChartData } from "../../src/chart/chart-data.js";
import { renderChartSvg, svgToPng } from "../../src/chart/render-chart.js";
import { syntheticRollout } from "./synthetic-rollout.js";

/**
 * `npm run bench:chart [-- --out DIR]`: how long the timeline chart takes to draw for a 200-worker rollout (SVG and
 * PNG, the median of several runs after a warm-up) and how large a 12-worker chart's PNG is. With `--out`, writes the
 * pictures there to look at.
 */
const outAt = process.argv.indexOf("--out");
const out = outAt >= 0 ? process.argv[outAt + 1] : undefined;
const RUNS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function measure(workers: number, windowSize: number) {
  const state = syntheticRollout({ workers, windowSize, eagerSteps: 0 });
  const svgMs: number[] = [];
  const pngMs: number[] = [];
  let svg = "";
  let png: Buffer = Buffer.alloc(0);
  for (let i = 0; i <= RUNS; i += 1) {
    const t0 = performance.now();
    svg = renderChartSvg(buildChartData(state));
    const t1 = performance.now();
    png = svgToPng(svg);
    const t2 = performance.now();
    if (i === 0) continue; // warm-up
    svgMs.push(t1 - t0);
    pngMs.push(t2 - t1);
  }
  if (out !== undefined) {
    writeFileSync(join(out, `chart-${workers}-workers.svg`), svg);
    writeFileSync(join(out, `chart-${workers}-workers.png`), png);
  }
  return {
    workers,
    svgMs: median(svgMs),
    pngMs: median(pngMs),
    svgBytes: Buffer.byteLength(svg),
    pngBytes: png.length,
  };
}

for (const row of [measure(12, 4), measure(200, 10)]) {
  console.log(
    `${String(row.workers).padStart(3)} workers: SVG ${row.svgMs.toFixed(0)} ms (${(row.svgBytes / 1024).toFixed(0)} kB), ` +
      `PNG +${row.pngMs.toFixed(0)} ms (${(row.pngBytes / 1024).toFixed(0)} kB), total ${(row.svgMs + row.pngMs).toFixed(0)} ms`,
  );
}
