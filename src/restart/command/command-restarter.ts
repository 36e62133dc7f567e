import { AppError, ErrorCode } from "../../core/errors.js";
import { formatShortDuration } from "../../core/format-duration.js";
import { type ProcessOutcome, runBoundedProcess } from "../../process/run-bounded-process.js";
import { throwIfAborted } from "../restart-abort.js";
import { validateRestartRequest } from "../validate-restart-request.js";
import type { RestartReceipt, RestartRequest, WorkerRestarter } from "../worker-restarter.js";
import { checkArgvTemplate, renderArgv } from "./command-template.js";

export interface CommandRestarterOptions {
  /**
   * Program and arguments; `{worker}`, `{host}`, `{version}`, `{image}`, `{pod}` are substituted inside each
   * argument (never re-split, never through a shell). argv[0] may not contain placeholders.
   */
  readonly argv: readonly string[];
  /** The whole run, in milliseconds; then the process group gets SIGTERM, and SIGKILL after `killGraceMs`. */
  readonly timeoutMs: number;
  /**
   * The child's complete environment. Default: only PATH, HOME, LANG, LC_ALL, TZ and TMPDIR of the bot's own
   * environment (the bot's Slack and Redis credentials never reach the command). CONNECT_ROLL_* variables
   * describing the step are always added.
   */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Default 2000 ms. */
  readonly killGraceMs?: number;
  /** Lines of stdout and of stderr kept for the receipt or error. Default 20. */
  readonly tailLines?: number;
}

const INHERITED_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"] as const;

function defaultEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

function stepEnv(req: RestartRequest): Record<string, string> {
  return {
    CONNECT_ROLL_STEP_ID: req.stepId,
    CONNECT_ROLL_KIND: req.kind,
    CONNECT_ROLL_WORKER: req.worker.name,
    CONNECT_ROLL_HOST: req.worker.host,
    CONNECT_ROLL_VERSION: req.version,
    CONNECT_ROLL_IMAGE: req.image ?? "",
    CONNECT_ROLL_POD: req.worker.pod ?? "",
  };
}

function formatTails(outcome: ProcessOutcome): string {
  const parts: string[] = [];
  if (outcome.stdoutTail.length > 0) parts.push(`stdout (tail):\n${outcome.stdoutTail.join("\n")}`);
  if (outcome.stderrTail.length > 0) parts.push(`stderr (tail):\n${outcome.stderrTail.join("\n")}`);
  return parts.length > 0 ? `\n${parts.join("\n")}` : "";
}

/** Restarts a worker by running a local program (a script, kubectl, ansible…) without a shell. */
export function createCommandRestarter(options: CommandRestarterOptions): WorkerRestarter {
  checkArgvTemplate(options.argv);
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new AppError(ErrorCode.ConfigInvalid, "Command executor: timeoutMs must be positive.");
  }
  const argv = [...options.argv];
  const program = argv[0] ?? "";
  const baseEnv = options.env === undefined ? defaultEnv() : { ...options.env };
  const running = new Map<AbortController, Promise<ProcessOutcome>>();

  async function restart(req: RestartRequest): Promise<RestartReceipt> {
    validateRestartRequest(req);
    const name = req.worker.name;
    const args = renderArgv(argv, req).slice(1);
    throwIfAborted(name, req.signal);
    const controller = new AbortController();
    const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal;
    const run = runBoundedProcess({
      program,
      args,
      env: { ...baseEnv, ...stepEnv(req) },
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      timeoutMs: options.timeoutMs,
      killGraceMs: options.killGraceMs ?? 2000,
      tailLines: options.tailLines ?? 20,
      signal,
    });
    running.set(controller, run);
    const outcome = await run.finally(() => running.delete(controller));
    const details = {
      worker: name,
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      stdoutTail: outcome.stdoutTail,
      stderrTail: outcome.stderrTail,
      durationMs: outcome.durationMs,
    };
    if (outcome.spawnError) {
      throw new AppError(
        ErrorCode.RestartFailed,
        `Restart command for ${name} could not start: ${outcome.spawnError.message}`,
        { cause: outcome.spawnError, retryable: false, details },
      );
    }
    if (outcome.killedFor === "abort") {
      throw new AppError(
        ErrorCode.RestartFailed,
        `Restart of ${name} was aborted; the command was stopped.`,
        {
          cause: req.signal?.reason,
          retryable: false,
          details: { ...details, aborted: true },
        },
      );
    }
    if (outcome.killedFor === "timeout") {
      throw new AppError(
        ErrorCode.RestartFailed,
        `Restart command for ${name} timed out after ${formatShortDuration(options.timeoutMs)} and was killed (${outcome.signal ?? "exit"}).${formatTails(outcome)}`,
        { retryable: false, details: { ...details, timedOut: true } },
      );
    }
    if (outcome.exitCode !== 0) {
      const how =
        outcome.exitCode === null ? `was killed by ${outcome.signal}` : `exited ${outcome.exitCode}`;
      throw new AppError(
        ErrorCode.RestartFailed,
        `Restart command for ${name} ${how}.${formatTails(outcome)}`,
        {
          retryable: false,
          details,
        },
      );
    }
    return {
      detail: `Restart command for ${name} exited 0 in ${formatShortDuration(outcome.durationMs)}.${formatTails(outcome)}`,
    };
  }

  /** Kills any command still running (same SIGTERM/SIGKILL sequence) and waits for it to end. */
  async function close(): Promise<void> {
    const runs = [...running.entries()];
    for (const [controller] of runs) controller.abort(new Error("restarter closed"));
    await Promise.all(runs.map(([, run]) => run));
  }

  return { kind: "command", restart, close };
}
