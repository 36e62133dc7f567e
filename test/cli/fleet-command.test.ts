import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetRunCommand } from "../../src/cli/commands/fleet.js";
import { fleetPlanCommand } from "../../src/cli/commands/fleet-plan.js";
import { runCli } from "../../src/cli/main.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { jsonLines } from "../support/json-lines.js";
import { waitFor } from "../support/wait-for.js";
import { type FleetLine as Line, restartTotals, writeSimFleetConfig } from "./support/fleet-fixtures.js";
import { QUICK_SIM } from "./support/sim-config-file.js";

const program = { version: "0.0.0", commands: [fleetRunCommand] };
const NAMES = ["staging", "prod-eu", "prod-us"] as const;
/** A cluster whose connectors produce a tenth as much on 3.7.3: its canary fails. */
const BAD = "canary-bad";
const SLOW = { "sim.slow.on.version": "3.7.3" };
const sims = new Map<string, RunningSim>();

/** A config with the simulated clusters and fleets over them; the canary-bad cluster soaks its canary for 2 s. */
const writeConfig = (file: string, fleets: Record<string, unknown>) =>
  writeSimFleetConfig(file, sims, fleets, (name) => (name === BAD ? { canarySoakMs: 2_000 } : {}));

beforeAll(async () => {
  for (const [i, name] of NAMES.entries()) {
    const sim = await startSim({
      ...QUICK_SIM,
      connectors: 2,
      tasksPerConnector: 2,
      seed: 20 + i,
    });
    sims.set(name, sim);
  }
  sims.set(
    BAD,
    await startSim({
      ...QUICK_SIM,
      throughput: 100,
      connectorSpecs: [
        { name: "orders", type: "source", tasksMax: 3, config: SLOW },
        { name: "clicks", type: "sink", tasksMax: 3, config: SLOW },
      ],
      seed: 29,
    }),
  );
  for (const [name, sim] of sims)
    await waitFor(`${name} running every task`, () => {
      const s = sim.cluster.state();
      return s.leader !== null && s.tasks.length > 0 && s.tasks.every((t) => t.state === "RUNNING");
    });
});
afterAll(async () => {
  for (const sim of sims.values()) await sim.close();
});

async function fleet(config: string, args: readonly string[]) {
  const io = captureIo({ LOG_LEVEL: "error" });
  const code = await runCli(program, ["fleet", "run", "--config", config, ...args], io);
  const lines = jsonLines<Line>(io.out());
  return { code, lines, err: io.err() };
}

const restarts = () => restartTotals(sims);

describe("connect-roll fleet run", () => {
  it("stops before a stage that is not approved, unattended, with nothing of it run", async () => {
    const config = await writeConfig("fleet-unapproved", {
      rollout: { stages: [["staging"], ["prod-eu", "prod-us"]], soakBetweenMs: 0 },
    });
    const before = restarts();
    const { code, lines } = await fleet(config, ["rollout", "v3.7.1", "--approve=blocking", "--json"]);
    expect(code).toBe(1);
    expect(lines.at(-1)).toMatchObject({ kind: "fleet", event: "summary", result: "failed" });
    expect(lines.at(-1)?.reason).toBe(
      "stage 2/2 (prod-eu, prod-us) was not approved (--approve=stage or --yes starts it); nothing of it ran",
    );
    const after = restarts();
    expect(after.staging).toBe((before.staging ?? 0) + 3);
    expect(after["prod-eu"]).toBe(before["prod-eu"]);
    expect(after["prod-us"]).toBe(before["prod-us"]);
  });

  it("rolls 3 clusters in 2 stages: the second starts after the first succeeded and soaked; every worker once", async () => {
    const config = await writeConfig("fleet-two-stages", {
      rollout: { stages: [["staging"], ["prod-eu", "prod-us"]], soakBetweenMs: 2_000 },
    });
    const before = restarts();
    const { code, lines, err } = await fleet(config, ["rollout", "v3.7.2", "--yes", "--json"]);
    expect(lines.at(-1), err).toMatchObject({ kind: "fleet", event: "summary", result: "succeeded" });
    expect(code).toBe(0);
    const at = (pred: (l: Line) => boolean) => lines.findIndex(pred);
    const stage1Done = at((l) => l.event === "stage-succeeded" && l.stage === 1);
    const soaked = at((l) => l.event === "stage-soaking" && l.stage === 1);
    const stage2 = at((l) => l.event === "stage-started" && l.stage === 2);
    const firstProdRestart = at((l) => l.kind === "restart-issued" && l.cluster !== "staging");
    const lastStagingLine = lines.map((l) => l.cluster).lastIndexOf("staging");
    expect(lastStagingLine).toBeLessThan(stage1Done);
    expect(stage1Done).toBeLessThan(soaked);
    expect(soaked).toBeLessThan(stage2);
    expect(stage2).toBeLessThan(firstProdRestart);
    const summaries = lines.filter((l) => l.kind === "summary");
    expect(summaries.map((s) => [s.cluster, s.result]).sort()).toEqual([
      ["prod-eu", "succeeded"],
      ["prod-us", "succeeded"],
      ["staging", "succeeded"],
    ]);
    const after = restarts();
    for (const n of NAMES) expect(after[n]).toBe((before[n] ?? 0) + 3);
    for (const n of NAMES)
      expect(
        sims
          .get(n)
          ?.cluster.state()
          .workers.every((w) => w.version === "3.7.2"),
      ).toBe(true);
  });

  it("a cluster that fails its stage stops the fleet: no later stage starts", async () => {
    const config = await writeConfig("fleet-bad-canary", {
      rollout: { stages: [[BAD], ["prod-us"]], soakBetweenMs: 0 },
    });
    const before = restarts();
    const { code, lines, err } = await fleet(config, ["rollout", "v3.7.3", "--yes", "--json"]);
    expect(code, err).toBe(1);
    expect(lines.find((l) => l.cluster === BAD && l.kind === "summary")?.result).not.toBe("succeeded");
    const summary = lines.at(-1);
    expect(summary).toMatchObject({ kind: "fleet", event: "summary", result: "failed" });
    expect(summary?.reason).toContain(BAD);
    expect(lines.some((l) => l.event === "stage-started" && l.stage === 2)).toBe(false);
    const after = restarts();
    expect(after["prod-us"]).toBe(before["prod-us"]);
    expect(after[BAD]).toBe((before[BAD] ?? 0) + 1);
  });

  it("an unknown fleet is a usage error naming the known ones", async () => {
    const config = await writeConfig("fleet-unknown", { rollout: { stages: [["staging"]] } });
    const { code, err } = await fleet(config, ["nope", "v3.7.1"]);
    expect(code).toBe(2);
    expect(err).toMatch(/^connect-roll fleet: unknown fleet "nope" in .* \(known: rollout\)\n$/);
  });
});

describe("connect-roll fleet plan", () => {
  it("prints every stage with its windows and approvals, then each cluster's plan, restarting nothing", async () => {
    const config = await writeConfig("fleet-plan", {
      rollout: { stages: [["staging"], ["prod-eu", "prod-us"]], soakBetweenMs: 60_000 },
    });
    const before = restarts();
    const io = captureIo({ LOG_LEVEL: "error" });
    const code = await runCli(
      { version: "0.0.0", commands: [fleetPlanCommand] },
      ["fleet", "plan", "--config", config, "rollout", "v3.9.1"],
      io,
    );
    expect(code).toBe(0);
    const out = io.out();
    expect(out).toContain("fleet rollout: stage 1/2: staging (window open); then a 1m00s soak\n");
    expect(out).toContain(
      "fleet rollout: stage 2/2: prod-eu (window open), prod-us (window open); approved before it starts\n",
    );
    for (const n of NAMES) expect(out).toMatch(new RegExp(`^\\[${n}\\] `, "m"));
    expect(restarts()).toEqual(before);
  });
});
