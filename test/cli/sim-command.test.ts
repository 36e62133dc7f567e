import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configCheckCommand } from "../../src/cli/commands/config-check.js";
import { simCommand } from "../../src/cli/commands/sim.js";
import { runCli } from "../../src/cli/main.js";
import { captureIo } from "../support/capture-io.js";
import { waitFor } from "../support/wait-for.js";

const program = { version: "0.0.0", commands: [simCommand, configCheckCommand] };

describe("connect-roll sim", () => {
  it("prints one JSON line and writes a config that config check accepts", async () => {
    const file = join(tmpdir(), `connect-roll-sim-${process.pid}-${Date.now()}.yml`);
    const controller = new AbortController();
    const io = { ...captureIo(), signal: controller.signal };
    const running = runCli(
      program,
      [
        "sim",
        "--workers",
        "6",
        "--connectors",
        "12",
        "--tasks-per-connector",
        "4",
        "--virtual-time",
        "--write-config",
        file,
      ],
      io,
    );
    await waitFor("sim's JSON line", () => io.out().includes("\n"));
    const line = JSON.parse(io.out().split("\n")[0] ?? "{}") as {
      controlUrl: string;
      workers: { url: string; metricsUrl: string }[];
    };
    expect(line.controlUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.workers).toHaveLength(6);
    expect(line.workers[0]?.metricsUrl).toBe(`${line.workers[0]?.url}/metrics`);
    // Written before the line: whoever waited for the line can use the file at once.
    expect(await readFile(file, "utf8")).toContain("clusters");
    const check = captureIo();
    expect(await runCli(program, ["config", "check", "--config", file], check)).toBe(0);
    controller.abort();
    expect(await running).toBe(0);
  });

  it("names the leader in its JSON line in real time (it was null before the first rebalance)", async () => {
    const controller = new AbortController();
    const io = { ...captureIo(), signal: controller.signal };
    const running = runCli(program, ["sim", "--workers", "3", "--connectors", "2"], io);
    await waitFor("sim's JSON line", () => io.out().includes("\n"));
    const line = JSON.parse(io.out().split("\n")[0] ?? "{}") as { leader: string | null };
    expect(line.leader).toMatch(/^worker-\d$/);
    controller.abort();
    expect(await running).toBe(0);
  });

  it("refuses a bad flag value with exit 2", async () => {
    const io = captureIo();
    expect(await runCli(program, ["sim", "--workers", "many"], io)).toBe(2);
    expect(io.err()).toContain("--workers");
  });
});
