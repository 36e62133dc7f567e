import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { fleetRunCommand } from "../../src/cli/commands/fleet.js";
import { runCli } from "../../src/cli/main.js";
import type { LabOptions } from "../../src/lab/lab-options.js";
import { type RunningLab, startLab } from "../../src/lab/start-lab.js";
import type { FleetLine as Line } from "../cli/support/fleet-fixtures.js";
import { captureIo } from "../support/capture-io.js";
import { jsonLines } from "../support/json-lines.js";
import { labState, writeLabConfig } from "./lab-support.js";

/** A fleet of two real labs in two stages: `connect-roll fleet run` upgrades both, the second after the first soaked. */
const labs: RunningLab[] = [];
afterAll(async () => {
  for (const lab of labs) await lab.close();
});

describe("a fleet of real labs", () => {
  it("upgrades two labs 3.9.1 → 4.1.1 in two stages: stage 2 only after stage 1 succeeded and soaked; every worker once", async () => {
    const options: LabOptions = {
      kafka: "3.9.1",
      workers: 2,
      connectors: 2,
      tasksPerConnector: 1,
      delayMs: 10_000,
      sessionTimeoutMs: 6_000,
    };
    const clusters: Record<string, unknown> = {};
    for (const name of ["lab-a", "lab-b"]) {
      const lab = await startLab(options);
      labs.push(lab);
      clusters[name] = (await writeLabConfig(lab, options, { canary: { soakMs: 5_000 } })).cluster;
    }
    const config = join(tmpdir(), `connect-roll-lab-fleet-${process.pid}.yml`);
    const fleets = { labs: { stages: [["lab-a"], ["lab-b"]], soakBetweenMs: 15_000 } };
    await writeFile(config, stringify({ clusters, fleets }));

    const io = captureIo({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "error" });
    const code = await runCli(
      { version: "0.0.0", commands: [fleetRunCommand] },
      ["fleet", "run", "--config", config, "labs", "4.1.1", "--yes", "--json"],
      io,
    );
    const lines = jsonLines<Line>(io.out());
    expect(lines.at(-1), io.err() + JSON.stringify(lines.slice(-4))).toMatchObject({
      kind: "fleet",
      event: "summary",
      result: "succeeded",
    });
    expect(code).toBe(0);
    const at = (pred: (l: Line) => boolean) => lines.findIndex(pred);
    const soaked = at((l) => l.event === "stage-soaking" && l.stage === 1);
    const stage2 = at((l) => l.event === "stage-started" && l.stage === 2);
    const lastA = lines.map((l) => l.cluster).lastIndexOf("lab-a");
    const firstB = lines.findIndex((l) => l.cluster === "lab-b");
    expect(lastA).toBeLessThan(soaked);
    expect(soaked).toBeLessThan(stage2);
    expect(stage2).toBeLessThan(firstB);
    for (const [i, lab] of labs.entries()) {
      const state = await labState(lab);
      console.log(JSON.stringify({ scenario: `fleet-lab-${i + 1}`, counters: state.counters }));
      expect(Object.values(state.counters.restarts)).toEqual([1, 1]);
      expect(state.workers.every((w) => w.version === "4.1.1")).toBe(true);
      expect(state.tasks.every((t) => t.state === "RUNNING")).toBe(true);
    }
  });
});
