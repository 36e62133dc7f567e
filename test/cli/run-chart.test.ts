import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import type { RunningSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { waitFor } from "../support/wait-for.js";
import { quickSimWithConfig } from "./support/sim-config-file.js";

const program = { version: "0.0.0", commands: [runCommand] };
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
let sim: RunningSim;
let config: string;

beforeAll(async () => {
  // 2.2 → 3.7: the group runs eager until the last old worker is gone, so the run asks (and --yes approves).
  ({ sim, config } = await quickSimWithConfig("run-chart", {
    version: "2.2.2",
    connectors: 3,
    tasksPerConnector: 2,
    seed: 5,
  }));
});
afterAll(async () => {
  await sim.close();
});

type EventLine = { kind: string; worker?: string; approval?: { kind: string; by: string } };

function eventsOf(out: string): EventLine[] {
  return out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as EventLine);
}

describe("connect-roll run --chart", () => {
  it("refuses a chart file that is neither .svg nor .png with one line (exit 2), before anything runs", async () => {
    const io = captureIo();
    const code = await runCli(
      program,
      ["run", "--config", config, "sim", "v3.7.1", "--chart", "out.gif"],
      io,
    );
    expect(code).toBe(2);
    expect(io.err()).toBe('connect-roll run: --chart must name a .svg or .png file (got "out.gif")\n');
    expect(Object.values(sim.cluster.state().counters.restarts).every((n) => n === 0)).toBe(true);
  });

  it("writes the chart at the end: a lane per step in the run's order, the leader marked, its approval with who", async () => {
    const file = join(tmpdir(), `connect-roll-run-chart-${process.pid}.svg`);
    const io = captureIo();
    const code = await runCli(
      program,
      ["run", "--config", config, "sim", "v3.7.1", "--yes", "--json", "--chart", file],
      io,
    );
    expect(code).toBe(0);
    expect(io.err()).toContain(`connect-roll run: chart written to ${file}\n`);
    const events = eventsOf(io.out());
    const order = events.filter((e) => e.kind === "step-started").map((e) => e.worker ?? "");
    expect(order).toHaveLength(3);
    const svg = await readFile(file, "utf8");
    expect(svg).toContain("sim → v3.7.1: succeeded");
    const leader = order.at(-1) ?? "";
    const labels = order.map((w) => (w === leader ? `★ ${w} (leader)` : w));
    const positions = labels.map((l) => svg.indexOf(`>${l}<`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    // Lanes in step order, top to bottom: the SVG draws the axis labels in that order.
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const approvals = events.filter((e) => e.kind === "approval-decided").map((e) => e.approval);
    expect(approvals.map((a) => a?.kind)).toContain("eager-window");
    for (const a of approvals) expect(svg).toContain(`${a?.kind}: approve · ${a?.by}`);
    expect(svg).toContain("eager window");
  }, 60_000);

  it("writes the chart when the run is interrupted, as PNG", async () => {
    const file = join(tmpdir(), `connect-roll-run-chart-${process.pid}.png`);
    const controller = new AbortController();
    const io = { ...captureIo(), signal: controller.signal };
    const running = runCli(
      program,
      ["run", "--config", config, "sim", "restart", "--yes", "--json", "--chart", file],
      io,
    );
    await waitFor("the first worker back", () => io.out().includes('"kind":"worker-back"'));
    controller.abort();
    expect(await running).toBe(1);
    expect(io.err()).toContain(`connect-roll run: chart written to ${file}\n`);
    const png = await readFile(file);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.length).toBeGreaterThan(1_000);
  }, 60_000);
});
