import type { ParseArgsConfig } from "node:util";

/** What a CLI command gets from the composition root: streams, environment, and a way to stop (SIGINT). */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
}

export type ParsedValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CliCommand {
  /** e.g. "plan" or "config check". */
  readonly name: string;
  readonly summary: string;
  /** Full help text printed by `connect-roll <name> --help`. */
  readonly help: string;
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  /** Positional arguments: exact count or a range. */
  readonly positionals: { readonly min: number; readonly max: number; readonly names: readonly string[] };
  run(values: ParsedValues, positionals: readonly string[], io: CliIo): Promise<number>;
}

/**
 * Exit codes: 0 success, 1 the job failed (invalid config, rollout failed), 2 usage error, 3 `run --timeout` passed
 * and the run stopped before it was done.
 */
export const ExitCode = { Ok: 0, Failed: 1, Usage: 2, TimedOut: 3 } as const;
