import { runBoundedProcess } from "../process/run-bounded-process.js";

export interface ToolResult {
  /** Exit code; -1 when the program could not be started or was ended by a signal. */
  readonly code: number;
  /** The tails of stdout and stderr. */
  readonly output: string;
  readonly missing: boolean;
}

/** Runs a build tool (mvn, javac, java) without a shell, in its own process group, bounded in time. */
export async function runTool(
  program: string,
  args: readonly string[],
  options: { timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<ToolResult> {
  const outcome = await runBoundedProcess({
    program,
    args,
    env: options.env ?? process.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    timeoutMs: options.timeoutMs,
    killGraceMs: 2_000,
    tailLines: 40,
  });
  const missing = (outcome.spawnError as NodeJS.ErrnoException | null)?.code === "ENOENT";
  return {
    code: outcome.exitCode ?? -1,
    output: [...outcome.stdoutTail, ...outcome.stderrTail].join("\n"),
    missing,
  };
}
