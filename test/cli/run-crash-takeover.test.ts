import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { waitFor } from "../support/wait-for.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `test:${randomUUID().slice(0, 8)}:`;
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
let sim: RunningSim | null = null;
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await sim?.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

function runCli(
  config: string,
  target = "v3.7.1",
): {
  child: ChildProcess;
  lines: AsyncIterable<string>;
  exit: Promise<number | null>;
} {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli.ts", "run", "--config", config, "sim", target, "--yes", "--json"],
    {
      env: {
        PATH: process.env.PATH ?? "",
        REDIS_URL,
        CONNECT_ROLL_REDIS_PREFIX: prefix,
        CONNECT_ROLL_LOCK_TTL_MS: "1500",
        LOG_LEVEL: "error",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  if (!child.stdout) throw new Error("no stdout");
  return { child, lines: createInterface({ input: child.stdout }), exit };
}

/** `executor`: the cluster's executor (default: the sim executor). */
async function startCluster(
  executor?: (controlUrl: string) => Record<string, unknown>,
  { metrics = true }: { metrics?: boolean } = {},
): Promise<{ running: RunningSim; config: string }> {
  await sim?.close();
  const running = await startSim({
    virtualTime: false,
    workers: 4,
    connectors: 4,
    tasksPerConnector: 2,
    version: "3.6.1",
    delayMs: 1_500,
    restartMs: 300,
    taskStartMs: 100,
    rebalanceMs: 50,
    sessionTimeoutMs: 1_000,
    seed: 5,
  });
  sim = running;
  const config = join(tmpdir(), `connect-roll-crash-${process.pid}.yml`);
  const cluster = simClusterConfig({
    clusterName: "sim",
    workers: running.workers,
    controlUrl: running.controlUrl,
    delayMs: 1_500,
    restartMs: 300,
    pollIntervalMs: 200,
    quietPeriodMs: 300,
    consecutivePolls: 2,
  });
  if (executor !== undefined) cluster.executor = executor(running.controlUrl);
  // Without metrics there is no process start time: nothing but the checkpoint says whether a restart happened.
  if (!metrics) cluster.workers = running.workers.map((w) => ({ name: w.name, url: w.url }));
  await writeFile(config, stringify({ clusters: { sim: cluster } }));
  return { running, config };
}

/**
 * A plain restart whose first run dies while its command executor is in flight (step 2's worker was restarted, the
 * executor never returned), then a second run that takes it over: the second run's events.
 */
async function crashWhileExecutorInFlight(metrics: boolean) {
  const stateFile = join(tmpdir(), `connect-roll-hang-${process.pid}.json`);
  await rm(stateFile, { force: true });
  const fixture = fileURLToPath(new URL("../restart/fixtures/restart-then-hang.mjs", import.meta.url));
  const { running, config } = await startCluster(
    (controlUrl) => ({
      kind: "command",
      argv: [process.execPath, fixture, controlUrl, "{worker}", stateFile],
      timeoutMs: 60_000,
    }),
    { metrics },
  );
  const first = runCli(config, "restart");
  let hangingPid: number | null = null;
  await waitFor(
    "the restart command to hang (its pid in the state file)",
    async () => {
      const state = JSON.parse(await readFile(stateFile, "utf8").catch(() => "{}")) as {
        hangingPid?: number;
      };
      hangingPid = state.hangingPid ?? null;
      return hangingPid !== null;
    },
    { timeoutMs: 40_000, intervalMs: 50 },
  );
  first.child.kill("SIGKILL");
  await first.exit;
  if (hangingPid !== null) process.kill(-hangingPid, "SIGKILL");
  // The restarted worker is up again before the takeover looks: nothing but the checkpoint (or a start time) can
  // tell it was restarted.
  await waitFor(
    "every worker running",
    () => running.cluster.state().workers.every((w) => w.state === "running"),
    {
      timeoutMs: 20_000,
    },
  );
  await waitFor(
    "the dead run's lock to expire",
    async () => (await redis.exists(`${prefix}lock:{sim}`)) === 0,
    {
      intervalMs: 50,
    },
  );
  const second = runCli(config, "restart");
  const events: {
    kind: string;
    result?: string;
    approval?: { kind: string; by?: string; decision?: string };
  }[] = [];
  for await (const line of second.lines) events.push(JSON.parse(line) as (typeof events)[number]);
  await second.exit;
  return { running, events };
}

describe("connect-roll run killed with SIGKILL mid-step", () => {
  it("is taken over by another run after the lease expires and finishes without restarting any worker twice", async () => {
    const { running, config } = await startCluster();

    const first = runCli(config);
    for await (const line of first.lines) {
      const event = JSON.parse(line) as { kind: string; step?: number };
      if (event.kind === "restart-issued" && event.step === 2) break;
    }
    first.child.kill("SIGKILL");
    await first.exit;
    // The lease (1.5 s) expires; nobody released it.
    await waitFor(
      "the dead run's lock to expire",
      async () => (await redis.exists(`${prefix}lock:{sim}`)) === 0,
      {
        intervalMs: 50,
      },
    );

    const second = runCli(config);
    const events: { kind: string; result?: string }[] = [];
    for await (const line of second.lines) events.push(JSON.parse(line) as { kind: string; result?: string });
    expect(await second.exit).toBe(0);
    expect(events.some((e) => e.kind === "rollout-taken-over")).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: "summary", result: "succeeded" });
    const state = running.cluster.state();
    expect(Object.values(state.counters.restarts)).toEqual([1, 1, 1, 1]);
    expect(state.workers.every((w) => w.version === "3.7.1")).toBe(true);
  }, 60_000);

  it("a resumed plain restart whose restart cannot be confirmed is never answered by --yes: no worker restarts twice", async () => {
    const { running, events } = await crashWhileExecutorInFlight(false);
    const restarts = Object.values(running.cluster.state().counters.restarts);
    expect(restarts.every((n) => n <= 1)).toBe(true);
    // The takeover cannot confirm step 2's restart (the worker never went down while it watched): it asks, and
    // --yes does not answer that prompt.
    const decided = events.find((e) => e.kind === "approval-decided");
    expect(decided?.approval).toMatchObject({ kind: "restart-unconfirmed", decision: "abort" });
    expect(decided?.approval?.by).toContain("--approve=restart");
    expect(events.at(-1)).toMatchObject({ kind: "summary", result: "aborted" });
  }, 60_000);

  it("with the start-time metric, the resumed plain restart is confirmed by the worker's process start time: no prompt, no second restart", async () => {
    const { running, events } = await crashWhileExecutorInFlight(true);
    const restarts = Object.values(running.cluster.state().counters.restarts);
    expect(restarts.every((n) => n <= 1)).toBe(true);
    // Facts over memory: the worker's start time (after the restart was issued) confirms the restart.
    expect(events.some((e) => e.kind === "approval-requested")).toBe(false);
    expect(events.at(-1)).toMatchObject({ kind: "summary", result: "succeeded" });
    expect(restarts).toEqual([1, 1, 1, 1]);
  }, 60_000);
});
