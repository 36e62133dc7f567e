import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { planCommand } from "../../src/cli/commands/plan.js";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { waitFor } from "../support/wait-for.js";

/** Plans that tell the truth: why no window formed, a configurable margin, downgrades. */

let sim: RunningSim;
const program = { version: "0", commands: [planCommand] };

beforeAll(async () => {
  sim = await startSim({
    virtualTime: true,
    workers: 4,
    connectors: 4,
    tasksPerConnector: 2,
    version: "3.7.1",
  });
});
afterAll(async () => {
  await sim.close();
});

async function plan(args: string[], pace: Record<string, unknown>) {
  const cluster = {
    ...simClusterConfig({
      clusterName: "sim",
      workers: sim.workers,
      controlUrl: sim.controlUrl,
      delayMs: 5_000,
      restartMs: 200,
    }),
    pace: { mode: "window", ...pace },
  };
  const file = join(
    tmpdir(),
    `connect-roll-plan-notes-${process.pid}-${Math.random().toString(36).slice(2)}.yml`,
  );
  await writeFile(file, stringify({ clusters: { sim: cluster } }));
  const io = captureIo();
  const code = await runCli(program, ["plan", "--config", file, "sim", ...args, "--json"], io);
  expect(io.err()).toBe("");
  expect(code).toBe(0);
  return JSON.parse(io.out()) as {
    windows: unknown[];
    findings: { severity: string; code: string; message: string }[];
  };
}

describe("plan notes", () => {
  it("says why pace window formed no window: the margin against the delay", async () => {
    const p = await plan(["restart"], {});
    expect(p.windows).toEqual([]);
    const note = p.findings.find((f) => f.code === "window-none");
    expect(note?.message).toContain(
      "a window fits 0 followers (the delay 5s must hold a restart of 0.2s plus the margin 5s",
    );
    expect(note?.message).toContain("pace.windowMarginFloorMs");
  });

  it("a smaller pace.windowMarginFloorMs makes room for windows", async () => {
    const p = await plan(["restart"], { windowMarginFloorMs: 100 });
    expect(p.windows.length).toBeGreaterThan(0);
    expect(p.findings.map((f) => f.code)).not.toContain("window-none");
  });

  it("warns about a downgrade", async () => {
    const p = await plan(["3.6.1"], {});
    const warn = p.findings.find((f) => f.code === "downgrade");
    expect(warn?.severity).toBe("warn");
    expect(warn?.message).toMatch(/^This is a downgrade: worker-\d runs 3\.7\.1/);
  });
});

describe("run says what plan adds", () => {
  it("warns about a downgrade on stderr and still runs it", async () => {
    const live = await startSim({
      virtualTime: false,
      workers: 2,
      connectors: 2,
      tasksPerConnector: 2,
      version: "3.7.1",
      delayMs: 500,
      restartMs: 100,
      taskStartMs: 20,
      rebalanceMs: 20,
    });
    try {
      const cluster = simClusterConfig({
        clusterName: "sim",
        workers: live.workers,
        controlUrl: live.controlUrl,
        delayMs: 500,
        restartMs: 100,
        pollIntervalMs: 100,
        quietPeriodMs: 100,
        consecutivePolls: 2,
      });
      const file = join(tmpdir(), `connect-roll-run-notes-${process.pid}.yml`);
      await writeFile(file, stringify({ clusters: { sim: cluster } }));
      await waitFor(
        "a leader and every task RUNNING",
        () =>
          live.cluster.state().leader !== null &&
          live.cluster.state().tasks.every((t) => t.state === "RUNNING"),
      );
      const io = captureIo();
      const code = await runCli(
        { version: "0", commands: [runCommand] },
        ["run", "--config", file, "sim", "3.6.1", "--yes"],
        io,
      );
      expect(io.err()).toMatch(/connect-roll run: warn: This is a downgrade: worker-\d runs 3\.7\.1/);
      expect(code).toBe(0);
    } finally {
      await live.close();
    }
  }, 60_000);
});
