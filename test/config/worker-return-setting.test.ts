import { describe, expect, it } from "vitest";
import { rolloutSettingsFor } from "../../src/composition/compose-cluster.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { beginRollout } from "../../src/core/rollout/decide.js";
import type { RolloutState } from "../../src/core/rollout/rollout-state.js";
import { NO_MEASUREMENTS, pendingStep } from "../../src/core/rollout/step-helpers.js";
import { workerReturnTimeoutMs } from "../../src/core/rollout/worker-return.js";
import { oneWorkerCluster } from "./one-worker-cluster.js";

const cluster = (gate: string, restart = "") =>
  oneWorkerCluster(`${restart}    gate:
      pollIntervalMs: 5000
${gate}`);

function prodOf(text: string) {
  const parsed = parseConfigText(text);
  if (parsed.kind !== "valid")
    throw new Error(parsed.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
  const prod = parsed.config.clusters.prod;
  if (!prod) throw new Error("no cluster prod");
  return prod;
}

function errorsOf(text: string) {
  const parsed = parseConfigText(text);
  return parsed.kind === "invalid" ? parsed.problems.filter((p) => p.severity === "error") : [];
}

/** A rollout with these settings whose steps measured these restarts. */
function rolloutWith(text: string, restartsMs: readonly number[]): RolloutState {
  const { state } = beginRollout({
    jobId: "job-1",
    cluster: "prod",
    target: { kind: "restart", version: "3.7.1", argument: "restart" },
    image: null,
    requestedBy: "bob",
    settings: rolloutSettingsFor(prodOf(text)),
    now: 0,
  });
  const steps = restartsMs.map((restartMs, i) => ({
    ...pendingStep({
      step: i + 1,
      worker: `w${i + 1}`,
      workerId: `10.0.0.${i + 1}:8083`,
      url: `http://10.0.0.${i + 1}:8083`,
      isLeader: false,
      fromVersion: "3.7.1",
    }),
    status: "settled" as const,
    measurements: { ...NO_MEASUREMENTS, restartMs },
  }));
  return { ...state, steps };
}

describe("gate.workerReturnMs", () => {
  it("set: reaches the rollout's settings and overrides the learned restart time", () => {
    const text = cluster("      workerReturnMs: 900000\n");
    expect(rolloutSettingsFor(prodOf(text)).workerReturnMs).toBe(900_000);
    expect(workerReturnTimeoutMs(rolloutWith(text, [200_000, 200_000]))).toBe(900_000);
  });

  it("unset: 10 × the learned restart time, never under 5 minutes", () => {
    const text = cluster("", "    restart:\n      expectedMs: 20000\n");
    expect(rolloutSettingsFor(prodOf(text)).workerReturnMs).toBeNull();
    // Nothing measured yet: the declared 20 s, 10 × = 200 s, so the 5-minute floor.
    expect(workerReturnTimeoutMs(rolloutWith(text, []))).toBe(300_000);
    // Measured 45 s and 50 s: the upper median, 50 s, 10 × = 500 s.
    expect(workerReturnTimeoutMs(rolloutWith(text, [45_000, 50_000]))).toBe(500_000);
    // A declared 2-minute restart: 20 minutes before anything is measured.
    const slow = cluster("", "    restart:\n      expectedMs: 120000\n");
    expect(workerReturnTimeoutMs(rolloutWith(slow, []))).toBe(1_200_000);
  });

  it.each([
    { value: "-5", message: />=1000/ },
    { value: "500", message: />=1000/ },
    { value: "1.5", message: /int/i },
    { value: "soon", message: /number/i },
  ])("refuses $value with one line at its path", ({ value, message }) => {
    const errors = errorsOf(cluster(`      workerReturnMs: ${value}\n`));
    expect([...new Set(errors.map((e) => e.path))]).toEqual(["clusters.prod.gate.workerReturnMs"]);
    expect(errors.at(-1)?.message).toMatch(message);
    for (const e of errors) expect(e.message).not.toContain("\n");
  });

  it("refuses a value not longer than restart.expectedMs: every worker would be asked about before it is back", () => {
    const errors = errorsOf(
      cluster("      workerReturnMs: 60000\n", "    restart:\n      expectedMs: 90000\n"),
    );
    expect(errors).toMatchObject([
      {
        rule: "gate-worker-return",
        path: "clusters.prod.gate.workerReturnMs",
        message:
          "60000 ms is not longer than restart.expectedMs (90000 ms): every worker would be asked about before it could be back",
      },
    ]);
  });
});
