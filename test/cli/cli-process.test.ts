import { writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { waitFor } from "../support/wait-for.js";
import { type SpawnedCli, spawnCli, spawnConnectRoll } from "./support/spawn-cli.js";

/**
 * The CLI as a process: an unreachable Redis ends `run` within seconds with the real cause, one
 * SIGTERM ends it, and `npm run cli -- sim` / `npm run demo` stop on `kill <npm's pid>` with nothing left behind.
 */

let sim: RunningSim;
let config: string;
const spawned: SpawnedCli[] = [];
const sockets: Socket[] = [];
let blackhole: Server | null = null;

function track(p: SpawnedCli): SpawnedCli {
  spawned.push(p);
  return p;
}

beforeAll(async () => {
  sim = await startSim({
    virtualTime: true,
    workers: 2,
    connectors: 1,
    tasksPerConnector: 1,
    version: "3.6.1",
  });
  config = join(tmpdir(), `connect-roll-process-${process.pid}.yml`);
  const cluster = simClusterConfig({
    clusterName: "sim",
    workers: sim.workers,
    controlUrl: sim.controlUrl,
    delayMs: 1_000,
    restartMs: 200,
  });
  await writeFile(config, stringify({ clusters: { sim: cluster } }));
});
afterEach(() => {
  for (const p of spawned.splice(0)) p.stop();
  for (const s of sockets.splice(0)) s.destroy();
  blackhole?.close();
  blackhole = null;
});
afterAll(async () => {
  await sim.close();
});

describe("connect-roll run with Redis unreachable", () => {
  it.each([
    [
      "refused",
      "redis://127.0.0.1:1",
      /cannot reach Redis at redis:\/\/127\.0\.0\.1:1: connect ECONNREFUSED/,
    ],
    [
      "wrong password",
      "redis://nobody:wrong@127.0.0.1:6379",
      /cannot reach Redis at redis:\/\/127\.0\.0\.1:6379: WRONGPASS/,
    ],
    [
      "TLS to a plain server",
      "rediss://127.0.0.1:6379",
      /cannot reach Redis at rediss:\/\/127\.0\.0\.1:6379: .*TLS/,
    ],
  ])(
    "%s: exits 1 with the cause in one line",
    async (_name, url, expected) => {
      const p = track(
        spawnConnectRoll(["run", "--config", config, "sim", "restart", "--yes"], { REDIS_URL: url }),
      );
      const { code } = await p.exited;
      expect(code).toBe(1);
      const lines = p.err().trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(expected);
    },
    20_000,
  );

  it("one SIGTERM ends a run that waits for a Redis that never answers", async () => {
    const connected = new Promise<void>((resolve) => {
      blackhole = createServer((socket) => {
        sockets.push(socket);
        resolve();
      });
    });
    const server = blackhole as unknown as Server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const p = track(
      spawnConnectRoll(["run", "--config", config, "sim", "restart", "--yes"], {
        REDIS_URL: `redis://127.0.0.1:${port}`,
      }),
    );
    await connected;
    process.kill(p.pid, "SIGTERM");
    const { code } = await p.exited;
    expect(code).toBe(1);
    expect(p.err()).toContain("interrupted");
  }, 20_000);
});

describe("servers started through npm stop on kill <npm's pid>", () => {
  it("npm run cli -- sim", async () => {
    const p = track(spawnCli("npm", ["run", "-s", "cli", "--", "sim", "--workers", "2", "--virtual-time"]));
    const controlUrl = (await p.waitFor(/"controlUrl":"([^"]+)"/))[1] ?? "";
    expect((await fetch(`${controlUrl}/sim/state`)).status).toBe(200);
    process.kill(p.pid, "SIGTERM");
    await p.exited;
    await expect(fetch(`${controlUrl}/sim/state`)).rejects.toThrow();
    // Nothing of the group survives npm (the sim used to keep running as an orphan of tsx).
    await waitFor("the process group to exit", () => !p.groupAlive());
  }, 30_000);

  it("npm run demo", async () => {
    const p = track(spawnCli("npm", ["run", "-s", "demo", "--", "--port", "0"]));
    const url = (await p.waitFor(/open (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? "";
    expect((await fetch(url)).status).toBe(200);
    process.kill(p.pid, "SIGTERM");
    await p.exited;
    await waitFor("the process group to exit", () => !p.groupAlive());
    await expect(fetch(url)).rejects.toThrow();
  }, 40_000);
});
