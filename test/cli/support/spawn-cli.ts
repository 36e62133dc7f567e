import { type ChildProcess, spawn } from "node:child_process";

/**
 * A CLI process for tests, in its own process group (so it and anything it started can be stopped by group id), with
 * captured output and awaitable conditions. `stop()` kills the group; call it in afterEach.
 */
export interface SpawnedCli {
  readonly child: ChildProcess;
  readonly pid: number;
  out(): string;
  err(): string;
  /** Resolves with the first match of `re` in stdout (or stderr with `stream: "err"`). */
  waitFor(re: RegExp, stream?: "out" | "err"): Promise<RegExpExecArray>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True while any process of the group is alive. */
  groupAlive(): boolean;
  stop(): void;
}

export function spawnCli(
  command: string,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): SpawnedCli {
  const child = spawn(command, [...args], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${command}`);
  let out = "";
  let err = "";
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
    wake();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
    wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      resolve({ code, signal });
      wake();
    }),
  );
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const groupAlive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    child,
    pid,
    out: () => out,
    err: () => err,
    exited,
    groupAlive,
    waitFor(re, stream = "out") {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(stream === "out" ? out : err);
          if (m) return resolve(m);
          if (done) return reject(new Error(`exited before ${re}; stdout: ${out}; stderr: ${err}`));
          waiters.push(check);
        };
        check();
      });
    },
    stop() {
      if (groupAlive()) process.kill(-pid, "SIGKILL");
    },
  };
}

/** `node --import tsx src/cli.ts …`: the CLI as one process. */
export function spawnConnectRoll(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): SpawnedCli {
  return spawnCli(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], env);
}
