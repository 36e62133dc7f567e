import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import type { RunningSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { quickSimWithConfig } from "./support/sim-config-file.js";

const program = { version: "0.0.0", commands: [runCommand] };
let sim: RunningSim;
let config: string;

beforeAll(async () => {
  ({ sim, config } = await quickSimWithConfig("run", { connectors: 3, tasksPerConnector: 2, seed: 9 }));
});
afterAll(async () => {
  await sim.close();
});

describe("connect-roll run", () => {
  it("refuses a version with shell metacharacters before any executor runs (exit 2)", async () => {
    for (const bad of ["3.7;rm -rf /", "$(id)", "3.7 && x"]) {
      const io = captureIo();
      expect(await runCli(program, ["run", "--config", config, "sim", bad, "--yes"], io)).toBe(2);
      expect(io.err()).toContain("not an accepted version");
    }
    expect(Object.values(sim.cluster.state().counters.restarts).every((n) => n === 0)).toBe(true);
  });

  it("refuses an unknown cluster with the closest names", async () => {
    const io = captureIo();
    expect(await runCli(program, ["run", "--config", config, "sin", "3.7.1"], io)).toBe(2);
    expect(io.err()).toContain("did you mean sim");
  });

  it("rolls the cluster and ends --json output with the summary (exit 0)", async () => {
    const io = captureIo();
    const code = await runCli(program, ["run", "--config", config, "sim", "v3.7.1", "--yes", "--json"], io);
    const lines = io
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string; [k: string]: unknown });
    const summary = lines.at(-1) as {
      kind: string;
      result: string;
      steps: {
        worker: string;
        restartMs: number;
        settleMs: number;
        tasksMoved: number;
        taskDowntimeMs: number;
      }[];
      totals: Record<string, number>;
    };
    expect(code).toBe(0);
    expect(summary.kind).toBe("summary");
    expect(summary.result).toBe("succeeded");
    expect(summary.steps).toHaveLength(3);
    for (const step of summary.steps) {
      expect(step.restartMs).toBeGreaterThan(0);
      expect(step.settleMs).toBeGreaterThanOrEqual(0);
      expect(typeof step.tasksMoved).toBe("number");
      expect(typeof step.taskDowntimeMs).toBe("number");
    }
    expect(summary.totals.stepsDone).toBe(3);
    // Plan vs reality: the plan's predictions beside what the rollout measured.
    const pvr = (
      summary as unknown as { planVsReality: Record<string, { predicted: number; real?: number }> }
    ).planVsReality;
    expect(pvr.tasksMoved?.real).toBe(summary.totals.tasksMoved);
    expect(typeof pvr.tasksMoved?.predicted).toBe("number");
    expect(pvr.wallMs?.real).toBe(summary.totals.wallMs);
    expect(lines.some((l) => l.kind === "rollout-planned")).toBe(true);
    expect(sim.cluster.state().workers.every((w) => w.version === "3.7.1")).toBe(true);
  }, 60_000);
});
