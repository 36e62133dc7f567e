import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { AppError, ErrorCode } from "../../../src/core/errors.js";
import { createCommandRestarter } from "../../../src/restart/command/command-restarter.js";
import type { RestartRequest } from "../../../src/restart/worker-restarter.js";
import { waitFor } from "../../support/wait-for.js";
import { describeWorkerRestarterContract } from "../worker-restarter-contract.js";

const fixture = (file: string): string => fileURLToPath(new URL(`../fixtures/${file}`, import.meta.url));
const worker = {
  name: "w1",
  url: "http://w1.example:8083",
  host: "w1.example",
  workerId: "w1.example:8083",
  pod: "connect-1",
};

function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "connect-roll-cmd-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function readRecords(file: string): { args: string[]; stepId: string | null }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { args: string[]; stepId: string | null });
}

describeWorkerRestarterContract("command", async () => {
  const { dir, remove } = tempDir();
  const out = join(dir, "calls.jsonl");
  const broken = join(dir, "broken");
  return {
    restarter: createCommandRestarter({
      argv: [process.execPath, fixture("record-argv.mjs"), out, broken, "{worker}", "--version={version}"],
      timeoutMs: 5000,
    }),
    restartsOf: async (name) => readRecords(out).filter((r) => r.args[0] === name).length,
    breakBackend: () => writeFileSync(broken, ""),
    close: async () => remove(),
    worker,
  };
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("command restarter", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  /** A command that writes its pid file and then hangs until it is killed. */
  const hangingCommand = () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const pidFile = join(dir, "pids.json");
    const restarter = createCommandRestarter({
      argv: [process.execPath, fixture("hang.mjs"), pidFile],
      timeoutMs: 10_000,
    });
    return { restarter, pidFile };
  };
  const req = (overrides: Partial<RestartRequest> = {}): RestartRequest => ({
    worker,
    kind: "upgrade",
    version: "3.8.0",
    image: "registry.example.com/kafka/connect:3.8.0",
    stepId: "job-7:step-2",
    ...overrides,
  });

  it("rejects unknown placeholders and a templated program at creation", () => {
    const create = (argv: string[]) => () => createCommandRestarter({ argv, timeoutMs: 1000 });
    expect(create(["restart", "{workr}"])).toThrow(/unknown placeholder \{workr\}/);
    expect(create(["{worker}", "x"])).toThrow(/argv\[0\]/);
    expect(create([])).toThrow(AppError);
  });

  it("substitutes inside each argument without re-splitting and passes the step in the environment", async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const out = join(dir, "calls.jsonl");
    const restarter = createCommandRestarter({
      argv: [
        process.execPath,
        fixture("record-argv.mjs"),
        out,
        join(dir, "nope"),
        "--target={worker} at {host}",
        "{image}",
        "{pod}",
      ],
      timeoutMs: 5000,
    });
    const receipt = await restarter.restart(req());
    expect(readRecords(out)).toEqual([
      {
        args: ["--target=w1 at w1.example", "registry.example.com/kafka/connect:3.8.0", "connect-1"],
        stepId: "job-7:step-2",
      },
    ]);
    expect(receipt.detail).toMatch(/exited 0/);
    expect(receipt.detail).toMatch(/restarted --target=w1 at w1.example/);
  });

  it("refuses when the template needs a value the request lacks", async () => {
    const restarter = createCommandRestarter({
      argv: [process.execPath, "-e", "0", "{image}"],
      timeoutMs: 1000,
    });
    const err = await restarter.restart(req({ image: null })).catch((e: unknown) => e);
    expect((err as AppError).code).toBe(ErrorCode.RestartRefused);
  });

  it("does not hand the bot's own secrets to the command by default", async () => {
    process.env.SLACK_BOT_TOKEN = "xoxb-test-secret";
    cleanups.push(() => delete process.env.SLACK_BOT_TOKEN);
    const restarter = createCommandRestarter({
      argv: [process.execPath, "-e", "process.stdout.write(String(process.env.SLACK_BOT_TOKEN))"],
      timeoutMs: 5000,
    });
    expect((await restarter.restart(req())).detail).toMatch(/undefined/);
  });

  it("kills the whole process group on timeout (SIGTERM, then SIGKILL) and reports it", async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const pidFile = join(dir, "pids.json");
    const restarter = createCommandRestarter({
      argv: [process.execPath, fixture("hang.mjs"), pidFile, "ignore-term"],
      timeoutMs: 400,
      killGraceMs: 200,
    });
    const err = await restarter.restart(req()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.RestartFailed);
    expect((err as AppError).message).toMatch(/timed out after 0.4s and was killed \(SIGKILL\)/);
    expect((err as AppError).message).toMatch(/hanging/);
    expect((err as AppError).details.timedOut).toBe(true);
    const pids = JSON.parse(readFileSync(pidFile, "utf8")) as { child: number; grandchild: number };
    await waitFor(
      "the command and its grandchild to be gone",
      () => !isAlive(pids.child) && !isAlive(pids.grandchild),
    );
  });

  it("stops a running command when the request is aborted", async () => {
    const { restarter, pidFile } = hangingCommand();
    const controller = new AbortController();
    const pending = restarter.restart(req({ signal: controller.signal })).catch((e: unknown) => e);
    await waitFor("the command to run (its pid file)", () => existsSync(pidFile));
    controller.abort(new Error("rollout aborted"));
    const err = await pending;
    expect((err as AppError).code).toBe(ErrorCode.RestartFailed);
    expect((err as AppError).details.aborted).toBe(true);
  });

  it("reports a failure with exit code and only the last lines of stdout and stderr", async () => {
    const restarter = createCommandRestarter({
      argv: [process.execPath, fixture("noisy.mjs"), "5000"],
      timeoutMs: 5000,
    });
    const err = (await restarter.restart(req()).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe(ErrorCode.RestartFailed);
    expect(err.message).toMatch(/exited 7/);
    expect(err.details.exitCode).toBe(7);
    const stdoutTail = err.details.stdoutTail as string[];
    const stderrTail = err.details.stderrTail as string[];
    expect(stdoutTail).toHaveLength(20);
    expect(stdoutTail[0]).toBe("out line 4981");
    expect(stdoutTail[19]).toBe("out line 5000");
    expect(stderrTail).toHaveLength(20);
    expect(stderrTail[19]).toBe("err line 5000");
    expect(err.message).not.toMatch(/out line 4980\n/);
    expect(err.message.length).toBeLessThan(5000);
  });

  it("reports a program that cannot start", async () => {
    const restarter = createCommandRestarter({ argv: ["/nonexistent/restart-worker"], timeoutMs: 1000 });
    const err = (await restarter.restart(req()).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe(ErrorCode.RestartFailed);
    expect(err.message).toMatch(/could not start/);
  });

  it("kills running commands on close", async () => {
    const { restarter, pidFile } = hangingCommand();
    const pending = restarter.restart(req()).catch((e: unknown) => e);
    await waitFor("the command to run (its pid file)", () => existsSync(pidFile));
    await restarter.close();
    expect(((await pending) as AppError).code).toBe(ErrorCode.RestartFailed);
  });
});
