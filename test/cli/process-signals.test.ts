import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { installSignalHandlers, type ProcessLike } from "../../src/cli/process-signals.js";

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function fakeProcess(): ProcessLike & EventEmitter & { stderrText(): string } {
  const emitter = new EventEmitter();
  let text = "";
  return Object.assign(emitter, {
    exit(code: number): never {
      throw new Exited(code);
    },
    stderr: {
      write(t: string) {
        text += t;
        return true;
      },
    },
    stderrText: () => text,
  });
}

describe("installSignalHandlers", () => {
  it("the first SIGTERM aborts the command's signal; a second exits at once with 143", () => {
    const proc = fakeProcess();
    const signal = installSignalHandlers(proc, 60_000);
    expect(signal.aborted).toBe(false);
    proc.emit("SIGTERM");
    expect(signal.aborted).toBe(true);
    expect(() => proc.emit("SIGTERM")).toThrow(new Exited(143));
    expect(proc.stderrText()).toContain("SIGTERM again: exiting now");
  });

  it("a second SIGINT exits with 130", () => {
    const proc = fakeProcess();
    installSignalHandlers(proc, 60_000);
    proc.emit("SIGINT");
    expect(() => proc.emit("SIGINT")).toThrow(new Exited(130));
  });
});
