import { spawn } from "node:child_process";
import { createTailBuffer } from "./tail-buffer.js";

export interface ProcessOutcome {
  /** Exit code, or null when the process was ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why we ended it ourselves, if we did. */
  readonly killedFor: "timeout" | "abort" | null;
  /** Set when the program could not be started at all (ENOENT, EACCES…). */
  readonly spawnError: Error | null;
  readonly stdoutTail: string[];
  readonly stderrTail: string[];
  readonly durationMs: number;
}

export interface RunOptions {
  readonly program: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly timeoutMs: number;
  /** After SIGTERM, how long the process group gets before SIGKILL. */
  readonly killGraceMs: number;
  readonly tailLines: number;
  readonly signal?: AbortSignal;
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    // Negative pid: the whole process group (the child is its leader because of `detached: true`).
    process.kill(-pid, sig);
  } catch {
    // Already gone.
  }
}

/**
 * Runs a program without a shell in its own process group, keeps only the tails of its output, and ends the
 * whole group on timeout or abort (SIGTERM, then SIGKILL after `killGraceMs`). Never rejects.
 */
export function runBoundedProcess(options: RunOptions): Promise<ProcessOutcome> {
  const started = Date.now();
  const stdout = createTailBuffer(options.tailLines);
  const stderr = createTailBuffer(options.tailLines);
  return new Promise((resolve) => {
    let killedFor: ProcessOutcome["killedFor"] = null;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;
    const child = spawn(options.program, [...options.args], {
      shell: false,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: options.env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    child.stdout.on("data", (c: Buffer) => stdout.push(c));
    child.stderr.on("data", (c: Buffer) => stderr.push(c));

    const terminate = (reason: "timeout" | "abort"): void => {
      if (settled || killedFor !== null) return;
      killedFor = reason;
      killGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), options.killGraceMs);
      killTimer.unref();
    };
    const timeoutTimer = setTimeout(() => terminate("timeout"), options.timeoutMs);
    const onAbort = (): void => terminate("abort");
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = (exitCode: number | null, sig: NodeJS.Signals | null, spawnError: Error | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(closeTimer);
      options.signal?.removeEventListener("abort", onAbort);
      // Leftover members of the group (a backgrounded grandchild) must not outlive a killed run.
      if (killedFor !== null) killGroup(child.pid, "SIGKILL");
      if (killTimer !== undefined) clearTimeout(killTimer);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        exitCode,
        signal: sig,
        killedFor,
        spawnError,
        stdoutTail: stdout.lines(),
        stderrTail: stderr.lines(),
        durationMs: Date.now() - started,
      });
    };
    child.on("error", (err) => finish(null, null, err));
    child.on("close", (code, sig) => finish(code, sig, null));
    // A grandchild holding the pipes open must not keep us waiting once the program itself has exited.
    child.on("exit", (code, sig) => {
      closeTimer = setTimeout(() => finish(code, sig, null), 250);
      closeTimer.unref();
    });
  });
}
