import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { labRestartWorkerCommand } from "../../src/cli/commands/lab-restart-worker.js";
import { runCli } from "../../src/cli/main.js";
import type { LabCluster } from "../../src/lab/lab-cluster.js";
import { createLabControlHandler } from "../../src/lab/lab-control-handler.js";
import { captureIo } from "../support/capture-io.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** The lab's control API over a stand-in cluster that records each restart it is asked for. */
async function controlApi(): Promise<{ url: string; restarts: unknown[] }> {
  const restarts: unknown[] = [];
  const cluster = {
    async restartWorker(name: string, options: unknown) {
      restarts.push({ name, options });
      return { kind: "ok" as const };
    },
    async state() {
      return { now: 0, workers: [] };
    },
  } as unknown as LabCluster;
  const server = createServer(createLabControlHandler(cluster));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, restarts };
}

const program = { version: "0.0.0", commands: [labRestartWorkerCommand] };

describe("lab restart-worker and the control API's restart", () => {
  it("passes the version and the worker's exactly.once.source.support to the lab", async () => {
    const api = await controlApi();
    const io = captureIo({});
    const args = ["lab", "restart-worker", "--control", api.url, "--worker", "worker-2"];
    const first = await runCli(
      program,
      [...args, "--version", "4.1.1", "--exactly-once-support", "enabled"],
      io,
    );
    expect(first, io.err()).toBe(0);
    expect(await runCli(program, [...args, "--exactly-once-support", "preparing"], io)).toBe(0);
    expect(await runCli(program, args, io)).toBe(0);
    expect(api.restarts).toEqual([
      { name: "worker-2", options: { version: "4.1.1", exactlyOnceSourceSupport: "enabled" } },
      { name: "worker-2", options: { exactlyOnceSourceSupport: "preparing" } },
      { name: "worker-2", options: {} },
    ]);
  });

  it("an unknown support value: one line, exit 2, nothing restarted; the API refuses it too", async () => {
    const api = await controlApi();
    const io = captureIo({});
    const code = await runCli(
      program,
      ["lab", "restart-worker", "--control", api.url, "--worker", "worker-2", "--exactly-once-support", "on"],
      io,
    );
    expect(code).toBe(2);
    expect(io.err().trim().split("\n")).toEqual([
      expect.stringContaining("use disabled, preparing or enabled"),
    ]);
    const res = await fetch(`${api.url}/sim/workers/worker-2/restart?exactlyOnceSupport=on`, {
      method: "POST",
    });
    expect(res.status).toBe(400);
    expect(api.restarts).toEqual([]);
  });
});
