import { describe, expect, it } from "vitest";
import { syntheticRollout } from "../../bench/chart/synthetic-rollout.js";
import { buildChartData } from "../../src/chart/chart-data.js";
import { chartLayout } from "../../src/chart/chart-option.js";
import { renderRolloutChart } from "../../src/chart/render-chart.js";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("renderRolloutChart", () => {
  const state = syntheticRollout({ workers: 12, windowSize: 4, eagerSteps: 0 });
  const { width, height } = chartLayout(buildChartData(state));

  it("renders a well-formed SVG document of the chart's size, with its title and lanes", () => {
    const svg = renderRolloutChart(state, "svg").toString("utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toContain(`width="${width}"`);
    expect(svg).toContain(`height="${height}"`);
    expect(svg).toContain("prod-connect → v3.9.1: succeeded");
    expect(svg).toContain("worker-12 (leader)");
  });

  it("renders a PNG of the same size, small enough for Slack", () => {
    const png = renderRolloutChart(state, "png");
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // IHDR: width and height, big-endian, at bytes 16..24.
    expect(png.readUInt32BE(16)).toBe(width);
    expect(png.readUInt32BE(20)).toBe(height);
    expect(png.length).toBeLessThan(300_000);
  });

  it("thins the worker labels of hundreds of lanes but always names the leader", () => {
    const big = renderRolloutChart(syntheticRollout({ workers: 200, windowSize: 10 }), "svg").toString(
      "utf8",
    );
    const labels = big.match(/>(★ )?worker-\d+( \(leader\))?</g) ?? [];
    expect(labels.length).toBeGreaterThan(40);
    expect(labels.length).toBeLessThan(100);
    expect(labels).toContain(">★ worker-200 (leader)<");
  });
});
