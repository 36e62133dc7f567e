import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rollbackCommand } from "../../src/cli/commands/rollback.js";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import type { RunningSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { jsonLines } from "../support/json-lines.js";
import { quickSimWithConfig } from "./support/sim-config-file.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `test:${randomUUID().slice(0, 8)}:`;
const env = { REDIS_URL, CONNECT_ROLL_REDIS_PREFIX: prefix, LOG_LEVEL: "error" };
const program = { version: "0.0.0", commands: [runCommand, rollbackCommand] };
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
let sim: RunningSim;
let config: string;

beforeAll(async () => {
  ({ sim, config } = await quickSimWithConfig("rollback", { connectors: 2, tasksPerConnector: 3, seed: 11 }));
});
afterAll(async () => {
  await sim.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

interface Line {
  readonly kind: string;
  readonly worker?: string;
  readonly result?: string;
  readonly reason?: string;
}

async function cli(args: readonly string[]): Promise<{ code: number; lines: Line[]; err: string }> {
  const io = captureIo(env);
  const code = await runCli(program, [...args], io);
  const lines = jsonLines<Line>(io.out());
  return { code, lines, err: io.err() };
}

const restartedIn = (lines: readonly Line[]) =>
  lines.filter((l) => l.kind === "restart-issued").map((l) => l.worker ?? "");
const versions = () => Object.fromEntries(sim.cluster.state().workers.map((w) => [w.name, w.version]));
const restarts = () => ({ ...sim.cluster.state().counters.restarts });

describe("connect-roll rollback", () => {
  it("refuses with one line when the job store has no rollout of the cluster, restarting nothing", async () => {
    const { code, err } = await cli(["rollback", "--config", config, "sim", "--yes"]);
    expect(code).toBe(1);
    expect(err).toBe(
      "connect-roll rollback: no rollout of sim is on record in the job store: nothing to roll back\n",
    );
    expect(Object.values(restarts()).every((n) => n === 0)).toBe(true);
  });

  it("refuses an unknown cluster as a usage error", async () => {
    const { code, err } = await cli(["rollback", "--config", config, "nope"]);
    expect(code).toBe(2);
    expect(err).toMatch(/^connect-roll rollback: unknown cluster "nope" \(known: sim\)\n$/);
  });

  it("returns every worker the upgrade moved to the version it left, newest move first, each once", async () => {
    const up = await cli(["run", "--config", config, "sim", "v3.7.1", "--yes", "--json"]);
    expect(up.code).toBe(0);
    const moved = restartedIn(up.lines);
    expect(moved).toHaveLength(3);
    expect(Object.values(versions())).toEqual(["3.7.1", "3.7.1", "3.7.1"]);
    // A failed upgrade's run names the rollback; a succeeded one need not, but the record allows it either way.
    const before = restarts();
    const back = await cli(["rollback", "--config", config, "sim", "--yes", "--json"]);
    expect(back.err).toContain(`back to 3.6.1, newest move first`);
    expect(back.code).toBe(0);
    expect(restartedIn(back.lines)).toEqual([...moved].reverse());
    expect(back.lines.at(-1)).toMatchObject({ kind: "summary", result: "succeeded" });
    expect(Object.values(versions())).toEqual(["3.6.1", "3.6.1", "3.6.1"]);
    const after = restarts();
    for (const w of moved) expect(after[w]).toBe((before[w] ?? 0) + 1);
  });

  it("refuses to roll back a plain restart: it changed no version", async () => {
    const restart = await cli(["run", "--config", config, "sim", "restart", "--yes", "--json"]);
    expect(restart.code).toBe(0);
    const before = restarts();
    const { code, err } = await cli(["rollback", "--config", config, "sim", "--yes"]);
    expect(code).toBe(1);
    expect(err).toMatch(
      /^connect-roll rollback: sim's last rollout \(job cr-[0-9a-f]{8}\) was a plain restart: it changed no version, so there is nothing to roll back\n$/,
    );
    expect(restarts()).toEqual(before);
  });

  it("without Redis there is no record to read: one line, nothing restarted", async () => {
    const io = captureIo({ LOG_LEVEL: "error" });
    const before = restarts();
    expect(await runCli(program, ["rollback", "--config", config, "sim"], io)).toBe(1);
    expect(io.err()).toMatch(/^connect-roll rollback: needs Redis: set REDIS_URL/);
    expect(restarts()).toEqual(before);
  });
});
