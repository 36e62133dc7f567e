import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import type { RunningSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { quickSimWithConfig } from "./support/sim-config-file.js";

const program = { version: "0.0.0", commands: [runCommand] };
const SLOW = { "sim.slow.on.version": "3.7.1" };
let sim: RunningSim;
let config: string;

beforeAll(async () => {
  ({ sim, config } = await quickSimWithConfig(
    "run-canary",
    {
      throughput: 100,
      connectorSpecs: [
        { name: "orders", type: "source", tasksMax: 3, config: SLOW },
        { name: "clicks", type: "sink", tasksMax: 3, config: SLOW },
      ],
      seed: 9,
    },
    (cluster) => ({ ...cluster, canary: { soakMs: 2_000 } }),
  ));
});
afterAll(async () => {
  await sim.close();
});

interface Line {
  readonly kind: string;
  readonly worker?: string;
  readonly step?: number;
  readonly approval?: { readonly kind: string; readonly decision?: string };
  readonly result?: string;
  readonly reason?: string;
}

describe("connect-roll run: a canary that does worse on the new version", () => {
  it("is caught at the soak, rolled back alone with --approve=canary, and no other worker is restarted", async () => {
    const before = { ...sim.cluster.state().counters.restarts };
    const io = captureIo({ LOG_LEVEL: "error" });
    const code = await runCli(
      program,
      ["run", "--config", config, "sim", "v3.7.1", "--approve=canary", "--json"],
      io,
    );
    const lines = io
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Line);
    const restarted = lines.filter((l) => l.kind === "restart-issued").map((l) => l.worker);
    const canary = restarted[0];
    expect(restarted).toEqual([canary, canary]);
    expect(lines.some((l) => l.kind === "canary-soaking" && l.worker === canary)).toBe(true);
    const asked = lines.find((l) => l.kind === "approval-requested");
    expect(asked?.approval?.kind).toBe("canary");
    expect(lines.find((l) => l.kind === "approval-decided")?.approval?.decision).toBe("rollback");
    const summary = lines.at(-1);
    expect(summary).toMatchObject({ kind: "summary", result: "failed" });
    expect(summary?.reason).toMatch(
      new RegExp(
        `^the canary ${canary} did worse than the old workers \\(record rate .* per task vs .* on the old workers`,
      ),
    );
    expect(summary?.reason).toContain("and was rolled back to 3.6.1; not restarted:");
    expect(code).toBe(1);
    expect(sim.cluster.state().workers.map((w) => w.version)).toEqual(["3.6.1", "3.6.1", "3.6.1"]);
    const after = sim.cluster.state().counters.restarts;
    for (const w of Object.keys(after)) expect(after[w]).toBe((before[w] ?? 0) + (w === canary ? 2 : 0));
  });
});
