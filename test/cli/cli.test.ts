import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configCheckCommand } from "../../src/cli/commands/config-check.js";
import { runCli } from "../../src/cli/main.js";
import { captureIo } from "../support/capture-io.js";

const program = { version: "9.9.9", commands: [configCheckCommand] };

describe("connect-roll CLI", () => {
  it("prints help and version", async () => {
    const io = captureIo();
    expect(await runCli(program, ["--help"], io)).toBe(0);
    expect(io.out()).toContain("config check");
    const io2 = captureIo();
    expect(await runCli(program, ["--version"], io2)).toBe(0);
    expect(io2.out()).toBe("9.9.9\n");
  });

  it("refuses an unknown command or flag with one line and exit 2", async () => {
    const io = captureIo();
    expect(await runCli(program, ["frobnicate"], io)).toBe(2);
    expect(io.err().trim().split("\n")).toHaveLength(1);
    const io2 = captureIo();
    expect(await runCli(program, ["config", "check", "--bogus"], io2)).toBe(2);
    expect(io2.err().trim().split("\n")).toHaveLength(1);
    expect(io2.err()).toContain("--bogus");
  });

  it("prints a command's help", async () => {
    const io = captureIo();
    expect(await runCli(program, ["config", "check", "--help"], io)).toBe(0);
    expect(io.out()).toContain("Exit codes");
  });

  it("checks the shipped example config", async () => {
    const io = captureIo({ CONNECT_PASSWORD: "x" });
    expect(await runCli(program, ["config", "check", "--config", "examples/connect-roll.yml"], io)).toBe(0);
    expect(io.out()).toContain("valid");
  });

  it("lists every problem of a bad config and exits 1", async () => {
    const file = join(tmpdir(), `connect-roll-bad-${process.pid}.yml`);
    await writeFile(file, "clusters:\n  prod:\n    workers: []\n    executor: { kind: sim }\n    extra: 1\n");
    const io = captureIo();
    expect(await runCli(program, ["config", "check", "--config", file], io)).toBe(1);
    expect(io.out()).toContain("clusters.prod.workers");
    expect(io.out()).toContain("clusters.prod.executor.controlUrl");
    expect(io.out()).toContain('unknown key "extra"');
  });

  it("reports a missing file as a failure, not a crash", async () => {
    const io = captureIo();
    expect(await runCli(program, ["config", "check", "--config", "/nonexistent/x.yml"], io)).toBe(1);
    expect(io.err()).toContain("cannot read config file");
  });
});
