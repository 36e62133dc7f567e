import { formatDuration } from "../core/format-duration.js";

/**
 * How the CLI process ends: the first SIGINT/SIGTERM aborts the command's signal (it stops, checkpoints, closes its
 * servers); a second one, or a command that is still not done after the grace period, exits at once. Once the
 * command has returned, the process exits even if something it used left a handle open.
 */

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

export interface ProcessLike {
  on(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  exit(code: number): never;
  readonly stderr: { write(text: string): unknown };
}

export function installSignalHandlers(proc: ProcessLike, graceMs = 30_000): AbortSignal {
  const controller = new AbortController();
  for (const sig of ["SIGINT", "SIGTERM"] as const)
    proc.on(sig, () => {
      if (controller.signal.aborted) {
        proc.stderr.write(`connect-roll: ${sig} again: exiting now\n`);
        proc.exit(SIGNAL_EXIT[sig]);
      }
      controller.abort(new Error(sig));
      setTimeout(() => {
        proc.stderr.write(
          `connect-roll: still not stopped ${formatDuration(graceMs)} after ${sig}: exiting\n`,
        );
        proc.exit(SIGNAL_EXIT[sig]);
      }, graceMs).unref();
    });
  return controller.signal;
}

/** After the command returned: exit with its code once stdout had a moment to drain, whatever is still open. */
export function exitWhenIdle(proc: ProcessLike, code: number, drainMs = 1_000): void {
  setTimeout(() => proc.exit(code), drainMs).unref();
}
