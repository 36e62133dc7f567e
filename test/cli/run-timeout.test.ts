import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import type { RunningSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { quickSimWithConfig } from "./support/sim-config-file.js";

const program = { version: "0.0.0", commands: [runCommand] };
let sim: RunningSim;
/** The simulated cluster, its executor keeping a restarted worker down for an hour: it never comes back. */
let config: string;

beforeAll(async () => {
  ({ sim, config } = await quickSimWithConfig(
    "run-timeout-never-back",
    { connectors: 2, tasksPerConnector: 2, seed: 5 },
    (cluster) => ({
      ...cluster,
      executor: { ...(cluster.executor as object), downMs: 3_600_000 },
      gate: { ...(cluster.gate as object), workerReturnMs: 1_000 },
    }),
  ));
});
afterAll(async () => {
  await sim.close();
});

interface Line {
  kind: string;
  [key: string]: unknown;
}

describe("connect-roll run --timeout", () => {
  it("refuses a duration it cannot read with one line and exit 2, before anything runs", async () => {
    for (const bad of ["soon", "30", "0m", "2h30x"]) {
      const io = captureIo();
      expect(await runCli(program, ["run", "--config", config, "sim", "v3.7.1", "--timeout", bad], io)).toBe(
        2,
      );
      expect(io.err()).toBe(
        `connect-roll run: --timeout must be a duration like 30m, 2h or 1h30m, got "${bad}"\n`,
      );
    }
    expect(Object.values(sim.cluster.state().counters.restarts).every((n) => n === 0)).toBe(true);
  });

  it("a worker that never comes back: --yes keeps waiting only until the time limit, then exit 3 with what was left undone", async () => {
    const io = captureIo();
    const code = await runCli(
      program,
      ["run", "--config", config, "sim", "v3.7.1", "--yes", "--json", "--timeout", "4s"],
      io,
    );
    const lines = io
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Line);
    const summary = lines.at(-1) as Line & {
      reason: string;
      leftUndone: string[];
      steps: { worker: string }[];
    };
    expect(code).toBe(3);
    expect(summary).toMatchObject({ kind: "summary", result: "aborted", timedOutAfterMs: 4_000 });
    expect(summary.reason).toMatch(/^timed out after 4s: /);
    // Nothing was brought to the target: the worker in flight (if its restart was sent in time) and the rest.
    expect([...summary.leftUndone].sort()).toEqual(summary.steps.map((s) => s.worker).sort());
    // --yes never restarts it again nor goes on without it.
    const decided = lines.flatMap((l) =>
      l.kind === "approval-decided" ? [(l.approval as { decision: string }).decision] : [],
    );
    expect(decided.every((d) => d === "keep-waiting")).toBe(true);
    expect(io.err()).toContain("connect-roll run: timed out after 4s");
    const restarts = Object.values(sim.cluster.state().counters.restarts).reduce((a, b) => a + b, 0);
    expect(restarts).toBeLessThanOrEqual(1);
  }, 60_000);
});
