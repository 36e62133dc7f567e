import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  metricsFromPrometheus,
  parsePrometheusText,
  WORKER_METRIC_NAMES,
} from "../../src/connect/prometheus.js";

/** A real 4.4.0 worker's /metrics (the lab, exporter 1.0.1, our rules), recorded by `npm run test:kafka:matrix`'s probe. */
const text = readFileSync("test/fixtures/connect/4.4.0/metrics.txt", "utf8");

describe("a 4.2+ worker's app-info, registered twice (KIP-1120)", () => {
  it("has two start-time series: under its client.id and under its quoted worker id", () => {
    const series = parsePrometheusText(text).samples.filter(
      (s) => s.name === WORKER_METRIC_NAMES.startTimeMs,
    );
    expect(series.map((s) => s.labels.clientid).sort()).toEqual(['"127.0.0.1:33275"', "connect-worker-1"]);
    expect(new Set(series.map((s) => s.value)).size).toBe(2);
  });

  it("the reader takes the earliest as the process's start time", () => {
    const m = metricsFromPrometheus(parsePrometheusText(text).samples);
    expect(m.startTimeMs).toBe(1_796_157_559_661);
    expect(m.protocol).toBe("sessioned");
    expect(m.leaderUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });
});
