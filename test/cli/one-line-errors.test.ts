import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { CliCommand } from "../../src/cli/command.js";
import { planCommand } from "../../src/cli/commands/plan.js";
import { runCli } from "../../src/cli/main.js";
import { captureIo } from "../support/capture-io.js";

/** Every error is one line on stderr, never a stack trace. */

const boom: CliCommand = {
  name: "boom",
  summary: "throws",
  help: "",
  options: {},
  positionals: { min: 0, max: 0, names: [] },
  run: () => Promise.reject(new Error("something broke\n    at somewhere (file.ts:1:1)")),
};
const program = { version: "0.0.0", commands: [planCommand, boom] };

async function config(cluster: Record<string, unknown>): Promise<string> {
  const file = join(
    tmpdir(),
    `connect-roll-one-line-${process.pid}-${Math.random().toString(36).slice(2)}.yml`,
  );
  await writeFile(
    file,
    stringify({
      clusters: {
        prod: {
          workers: [{ name: "w1", url: "http://127.0.0.1:1" }],
          executor: { kind: "sim", controlUrl: "http://127.0.0.1:1" },
          ...cluster,
        },
      },
    }),
  );
  return file;
}

function oneLineOf(text: string): string {
  const lines = text.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(text).not.toMatch(/^\s+at /m);
  return lines[0] ?? "";
}

describe("one-line errors", () => {
  it("plan with a missing env var", async () => {
    const file = await config({ auth: { basic: { username: "u", passwordEnv: "PLAN_PW_UNSET" } } });
    const io = captureIo();
    expect(await runCli(program, ["plan", "--config", file, "prod", "restart"], io)).toBe(1);
    expect(oneLineOf(io.err())).toBe(
      "connect-roll plan: cannot read prod: Connect basic auth: environment variable PLAN_PW_UNSET is not set",
    );
  });

  it("plan with a missing CA file", async () => {
    const file = await config({ tls: { caFile: "/nonexistent/plan-ca.pem" } });
    const io = captureIo();
    expect(await runCli(program, ["plan", "--config", file, "prod", "restart"], io)).toBe(1);
    expect(oneLineOf(io.err())).toMatch(
      /^connect-roll plan: .* is not valid: error clusters\.prod\.tls\.caFile \(line \d+, column \d+\): cannot read \/nonexistent\/plan-ca\.pem \(ENOENT\); see: connect-roll config check --config /,
    );
  });

  it("a config with several errors names the first and how to see them all", async () => {
    const file = await config({ colour: "blue", gate: { pollIntervalMs: 1 } });
    const io = captureIo();
    expect(await runCli(program, ["plan", "--config", file, "prod", "restart"], io)).toBe(1);
    expect(oneLineOf(io.err())).toMatch(/is not valid: .*\(and 1 more\); see: connect-roll config check/);
  });

  it("an error no command expected", async () => {
    const io = captureIo();
    expect(await runCli(program, ["boom"], io)).toBe(1);
    expect(oneLineOf(io.err())).toBe("connect-roll boom: something broke; at somewhere (file.ts:1:1)");
  });
});
