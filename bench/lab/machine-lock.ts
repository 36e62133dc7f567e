import { spawn } from "node:child_process";

/**
 * An exclusive hold of the machine's lock file (`flock -x FILE`), taken for one lab run and released after it, so
 * that other users of the machine get their turn between runs. The hold is a `flock` child that keeps the lock while
 * its stdin is open; `release()` closes it.
 */
export interface MachineLock {
  release(): Promise<void>;
}

export async function holdMachineLock(file: string, timeoutMs = 3_600_000): Promise<MachineLock> {
  const child = spawn(
    "flock",
    ["-x", "-w", String(Math.ceil(timeoutMs / 1000)), file, "-c", "echo held; exec cat >/dev/null"],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`flock ${file} exited ${code} before holding the lock`)));
    child.once("error", reject);
  });
  return {
    async release() {
      child.stdin.end();
      await exited;
    },
  };
}
