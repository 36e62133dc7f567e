import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fleetAbortCommand, fleetStatusCommand } from "../../src/cli/commands/fleet-control.js";
import { runCli } from "../../src/cli/main.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { waitFor } from "../support/wait-for.js";
import { type FleetLine as Line, restartTotals, writeSimFleetConfig } from "./support/fleet-fixtures.js";
import { QUICK_SIM } from "./support/sim-config-file.js";

/**
 * A fleet run is a process of its own (`connect-roll fleet run`) that keeps its record in the bot's Redis: killed
 * mid-stage, it is shown stopped and a rerun resumes at that stage; aborted from another process, it starts no further
 * stage. Three simulated clusters over real HTTP, a real Redis, the CLI as child processes.
 */
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `test:${randomUUID().slice(0, 8)}:`;
const ENV = {
  REDIS_URL,
  CONNECT_ROLL_REDIS_PREFIX: prefix,
  CONNECT_ROLL_LOCK_TTL_MS: "1500",
  LOG_LEVEL: "error",
};
const NAMES = ["staging", "prod-eu", "prod-us"] as const;
const sims = new Map<string, RunningSim>();
const children: ChildProcess[] = [];
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
const program = { version: "0.0.0", commands: [fleetStatusCommand, fleetAbortCommand] };

beforeAll(async () => {
  for (const [i, name] of NAMES.entries())
    sims.set(name, await startSim({ ...QUICK_SIM, connectors: 2, tasksPerConnector: 2, seed: 40 + i }));
  for (const [name, sim] of sims)
    await waitFor(`${name} running every task`, () => {
      const s = sim.cluster.state();
      return s.leader !== null && s.tasks.length > 0 && s.tasks.every((t) => t.state === "RUNNING");
    });
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  for (const sim of sims.values()) await sim.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** `quietPeriodMs`: each step's settle gate waits this long (a slower rollout to abort in the middle of). */
const writeConfig = (file: string, soakBetweenMs: number, quietPeriodMs = 200) =>
  writeSimFleetConfig(
    file,
    sims,
    { rollout: { stages: [["staging"], ["prod-eu", "prod-us"]], soakBetweenMs } },
    () => ({
      quietPeriodMs,
    }),
  );

/** `connect-roll fleet run` as a child process: its JSON lines as they come, and its exit code. */
function fleetRun(config: string, target: string) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/cli.ts",
      "fleet",
      "run",
      "--config",
      config,
      "rollout",
      target,
      "--yes",
      "--json",
    ],
    { env: { PATH: process.env.PATH ?? "", ...ENV }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  const lines: Line[] = [];
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  if (!child.stdout) throw new Error("no stdout");
  createInterface({ input: child.stdout }).on("line", (l) => {
    if (l.startsWith("{")) lines.push(JSON.parse(l) as Line);
  });
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, lines, exit, err: () => err };
}

async function cli(args: readonly string[]) {
  const io = captureIo(ENV);
  const code = await runCli(program, args, io);
  return { code, out: io.out(), err: io.err() };
}

const restarts = () => restartTotals(sims);

describe("a fleet run kept in Redis", () => {
  it("killed mid-stage, is shown stopped; the rerun resumes at that stage, never rolls or soaks the done stage again, and every worker restarts once", async () => {
    const config = await writeConfig("fleet-resume", 1_500);
    const before = restarts();
    const first = fleetRun(config, "v3.7.2");
    await waitFor(
      "a restart in stage 2",
      () => first.lines.some((l) => l.kind === "restart-issued" && l.cluster === "prod-eu"),
      { timeoutMs: 60_000 },
    );
    first.child.kill("SIGKILL");
    await first.exit;

    // Once the dead run's lease on the fleet lapses, status tells it from a live run.
    const stopped = await waitFor(
      "status to say stopped",
      async () => {
        const s = await cli(["fleet", "status", "--config", config, "rollout"]);
        return s.out.includes("stopped (its process is gone)") ? s : null;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(stopped.code).toBe(0);
    expect(stopped.out).toContain("stage 1/2 succeeded: staging succeeded");
    expect(stopped.out).toMatch(/stage 2\/2 running: prod-eu running/);
    expect(stopped.out).toContain(`resume: connect-roll fleet run --config ${config} rollout v3.7.2`);

    const abortStopped = await cli(["fleet", "abort", "--config", config, "rollout"]);
    expect(abortStopped.code).toBe(1);
    expect(abortStopped.err).toContain("is stopped (its process is gone): nothing runs to abort");

    const second = fleetRun(config, "v3.7.2");
    expect(await second.exit, second.err()).toBe(0);
    expect(second.lines.find((l) => l.event === "resumed")).toMatchObject({ stage: 2 });
    expect(second.lines.some((l) => l.cluster === "staging")).toBe(false);
    expect(second.lines.some((l) => l.event === "stage-soaking")).toBe(false);
    expect(second.lines.at(-1)).toMatchObject({ event: "summary", result: "succeeded" });
    const after = restarts();
    for (const name of NAMES) expect(after[name], name).toBe((before[name] ?? 0) + 3);

    const done = await cli(["fleet", "status", "--config", config, "rollout", "--json"]);
    expect(JSON.parse(done.out)).toMatchObject({ status: "succeeded", live: false, target: "v3.7.2" });
  }, 180_000);

  it("one run of a fleet at a time; aborted while a cluster rolls: that cluster stops before its next restart and the fleet ends aborted", async () => {
    const config = await writeConfig("fleet-abort-rolling", 1_000, 5_000);
    const before = restarts();
    const run = fleetRun(config, "v3.7.4");
    await waitFor("staging's first restart", () => run.lines.some((l) => l.kind === "restart-issued"), {
      timeoutMs: 60_000,
    });
    await waitFor(
      "the record to show staging running",
      async () =>
        (await cli(["fleet", "status", "--config", config, "rollout"])).out.includes("staging running"),
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    const second = fleetRun(config, "v3.7.4");
    expect(await second.exit).toBe(1);
    expect(second.err()).toMatch(
      /^connect-roll fleet: fleet rollout is already running \(run fl-[0-9a-f]{8} by cli:/m,
    );
    const aborted = await cli(["fleet", "abort", "--config", config, "rollout"]);
    expect(aborted.code, aborted.err).toBe(0);
    expect(aborted.out).toMatch(/; aborting staging \(job cr-[0-9a-f]{8}\) before their next restart\n$/);
    expect(await run.exit).toBe(1);
    expect(run.lines.at(-1)?.reason).toMatch(
      /^aborted by .+ during stage 1\/2 \(staging\); later stages not started$/,
    );
    const after = restarts();
    expect(after.staging).toBeLessThan((before.staging ?? 0) + 3);
    expect(after["prod-eu"]).toBe(before["prod-eu"]);
    const status = await cli(["fleet", "status", "--config", config, "rollout"]);
    expect(status.out).toContain("stage 1/2 aborted: staging aborted");
  }, 180_000);

  it("aborted from another process during the soak: no further stage starts, and status says who aborted it", async () => {
    const config = await writeConfig("fleet-abort", 60_000);
    const before = restarts();
    const run = fleetRun(config, "v3.7.3");
    await waitFor("the soak after stage 1", () => run.lines.some((l) => l.event === "stage-soaking"), {
      timeoutMs: 60_000,
    });
    const aborted = await cli(["fleet", "abort", "--config", config, "rollout"]);
    expect(aborted.code, aborted.err).toBe(0);
    expect(aborted.out).toMatch(
      /^abort requested for fleet rollout \(run fl-[0-9a-f]{8}\): no further stage will start\n$/,
    );
    expect(await run.exit).toBe(1);
    expect(run.lines.at(-1)).toMatchObject({ event: "summary", result: "aborted" });
    expect(run.lines.at(-1)?.reason).toMatch(/^aborted by .+ during the soak of stage 1\/2 \(staging\)$/);
    const after = restarts();
    expect(after.staging).toBe((before.staging ?? 0) + 3);
    expect(after["prod-eu"]).toBe(before["prod-eu"]);
    expect(after["prod-us"]).toBe(before["prod-us"]);

    const status = await cli(["fleet", "status", "--config", config, "rollout"]);
    expect(status.out).toMatch(/: aborted: aborted by .+ during the soak of stage 1\/2 \(staging\)\n/);
    expect(status.out).toContain("stage 1/2 aborted: staging succeeded");
    expect(status.out).toContain("stage 2/2 pending: prod-eu pending, prod-us pending");
    // The run's timeline: a lane per cluster, staging's drawn from its rollout, the later stage's empty.
    const file = join(tmpdir(), `connect-roll-fleet-chart-${process.pid}.svg`);
    const charted = await cli(["fleet", "status", "--config", config, "rollout", "--chart", file]);
    expect(charted.code, charted.err).toBe(0);
    const svg = await readFile(file, "utf8");
    expect(svg).toContain("fleet rollout → v3.7.3: aborted");
    for (const lane of ["stage 1 · staging", "stage 2 · prod-eu", "stage 2 · prod-us"])
      expect(svg).toContain(lane);
    const again = await cli(["fleet", "abort", "--config", config, "rollout"]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/latest run \(fl-[0-9a-f]{8}\) is aborted, not running: nothing to abort\n$/);
  }, 180_000);
});
