import { describe, expect, it } from "vitest";
import { rolloutSettingsFor } from "../../src/composition/compose-cluster.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { oneWorkerCluster } from "./one-worker-cluster.js";

const cluster = oneWorkerCluster;

function settingsOf(extra: string) {
  const parsed = parseConfigText(cluster(extra));
  if (parsed.kind !== "valid")
    throw new Error(parsed.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
  const prod = parsed.config.clusters.prod;
  if (!prod) throw new Error("no cluster prod");
  return rolloutSettingsFor(prod).planPolicy;
}

describe("window pace settings from the configuration file", () => {
  it("defaults: ±10 % jitter, a 1 s probe, the leader closes the last window, no held-share cap", () => {
    expect(settingsOf("")).toMatchObject({
      restartJitter: 0.1,
      windowProbeIntervalMs: 1_000,
      leaderClosesLastWindow: true,
      windowMarginFloorMs: 5_000,
      windowMaxHeldShare: 1,
    });
  });

  it("restart.jitter, pace.windowProbeIntervalMs and pace.leaderClosesLastWindow reach the engine", () => {
    const policy = settingsOf(`    restart:
      expectedMs: 40000
      jitter: 0.25
    pace:
      mode: window
      windowProbeIntervalMs: 500
      leaderClosesLastWindow: false
`);
    expect(policy).toMatchObject({
      pace: "window",
      expectedRestartMs: 40_000,
      restartJitter: 0.25,
      windowProbeIntervalMs: 500,
      leaderClosesLastWindow: false,
    });
  });

  it("refuses a jitter above 1 and a probe faster than 100 ms, each at its path", () => {
    const parsed = parseConfigText(
      cluster(`    restart:
      jitter: 1.5
    pace:
      windowProbeIntervalMs: 20
`),
    );
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind !== "invalid") return;
    expect(
      parsed.problems
        .filter((p) => p.severity === "error")
        .map((p) => p.path)
        .sort(),
    ).toEqual(["clusters.prod.pace.windowProbeIntervalMs", "clusters.prod.restart.jitter"]);
  });
});
