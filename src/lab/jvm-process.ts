import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { createInterface } from "node:readline";

/**
 * One JVM of the lab (the broker or a Connect worker) in its own process group, so that stopping it stops everything
 * it started. Its stderr (the log: the lab's logging configs write there) goes to a log file and, line by line, to
 * `onLog`; its stdout (the lab connector's JSON lines) to `onStdout`.
 */
export interface JvmProcess {
  readonly pid: number;
  /** Resolves with the exit code (null when ended by a signal) once the process has exited. */
  readonly exited: Promise<number | null>;
  isRunning(): boolean;
  /** SIGTERM to the group; SIGKILL after `graceMs`. Resolves once it exited. */
  stop(graceMs: number): Promise<void>;
  /** SIGKILL to the group (a crash). Resolves once it exited. */
  kill(): Promise<void>;
}

export interface JvmOptions {
  readonly java: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly logFile: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly onLog?: (line: string, at: number) => void;
  readonly onStdout?: (line: string, at: number) => void;
}

/** Every lab JVM still running in this process, so an exit handler can kill them (no JVM outlives the lab). */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Gone already.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of live) killGroup(child, "SIGKILL");
  });
}

export function startJvm(options: JvmOptions): JvmProcess {
  installExitHook();
  const log: WriteStream = createWriteStream(options.logFile, { flags: "a" });
  const child = spawn(options.java, [...options.args], {
    cwd: options.cwd,
    detached: true,
    shell: false,
    stdio: ["ignore", "pipe", "pipe"],
    env: options.env ?? { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  });
  if (child.pid === undefined) throw new Error(`could not start ${options.java}`);
  live.add(child);
  let running = true;
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      running = false;
      live.delete(child);
      resolve(code);
    });
    child.once("error", () => {
      running = false;
      live.delete(child);
      resolve(null);
    });
  });
  const stderr = createInterface({ input: child.stderr as NodeJS.ReadableStream });
  stderr.on("line", (line) => {
    log.write(`${line}\n`);
    options.onLog?.(line, Date.now());
  });
  const stdout = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  stdout.on("line", (line) => options.onStdout?.(line, Date.now()));
  void exited.then(() => log.end());
  const pid = child.pid;
  return {
    pid,
    exited,
    isRunning: () => running,
    async stop(graceMs) {
      if (!running) return;
      killGroup(child, "SIGTERM");
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
      // Anything else in its group (none expected) goes too.
      killGroup(child, "SIGKILL");
    },
    async kill() {
      if (!running) return;
      killGroup(child, "SIGKILL");
      await exited;
    },
  };
}
