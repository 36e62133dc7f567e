import { hostname, userInfo } from "node:os";
import type { Logger } from "pino";
import { createRolloutEngine } from "../../composition/rollout-engine.js";
import { readEnv } from "../../config/env.js";
import type { ClusterReader } from "../../connect/cluster-reader.js";
import { isAppError } from "../../core/errors.js";
import { systemClock } from "../../jobs/runner/system-clock.js";
import type { WorkerRestarter } from "../../restart/worker-restarter.js";
import type { FoundRollback } from "../../usecases/prepare-rollback.js";
import { checkClusterFree, type PreparedRollout } from "../../usecases/prepare-rollout.js";
import { writeChartFile } from "../chart-file.js";
import { createCliApprovals } from "../cli-approvals.js";
import { type ClusterContext, loadClusterContext } from "../cluster-context.js";
import { type CliCommand, type CliIo, ExitCode } from "../command.js";
import { createRootLogger } from "../create-logger.js";
import { oneLine } from "../one-line.js";
import { checkRun } from "../run-checks.js";
import { printRunEvents } from "../run-events.js";
import { parseRunFlags, type RunFlags } from "../run-flags.js";
import { reportOutcome } from "../run-outcome.js";
import { createRunReport, type RunReport } from "../run-report.js";
import { startOrResume } from "../run-start.js";
import { openRunStore, type RunStore } from "../run-store.js";
import { type RunCommandName, resumeCommand } from "../run-summary.js";
export const runCommand: CliCommand = {
  name: "run",
  summary: "run a rollout from a terminal or a pipeline (same engine as the bot)",
  help: `Usage: connect-roll run [--config FILE] CLUSTER VERSION [--yes | --approve=KINDS] [--json] [--pace safe|window|rotate]
       [--chart FILE.svg|FILE.png] [--timeout D]

Runs the rollout: one worker at a time, followers first and the group leader last, each step followed by the
settle gate. The Slack thread becomes lines on stdout (or JSON lines with --json, ending with a summary).

Approvals: --yes answers every prompt with its "go" choice except the ones that may restart a worker a second
time (a failed or unconfirmed restart: the named --approve=restart; a failed canary's rollback: --approve=canary).
--approve=KINDS answers only those kinds (blocking, eager, slow, gate-failed, config, restart, task-restart,
continue-without, canary). Other prompts
are asked on a terminal; without a terminal they are answered "abort", so nothing risky happens unattended.

A worker not back within gate.workerReturnMs asks: restart it again, continue without it, keep waiting or abort.
--yes never restarts it again nor continues without it: it keeps waiting while --timeout bounds the run, and
aborts without --timeout. --approve=restart restarts it again (once per step), --approve=continue-without goes on
without it (the step is skipped and the run ends failed, saying the worker was not brought back).

--timeout D bounds the whole run (30m, 2h, 1h30m): once it passes the rollout stops at the next safe point (never
while the executor restarts a worker; a prompt is left unanswered), says "timed out after D" and what was left
undone, and exits 3.

With REDIS_URL (or redis.url in the config) the cluster lock is shared with the bot and other runs, and an
interrupted run (Ctrl-C, a crash) is resumed by running the same command again once its lease has expired.

Checks shared with /connect-roll: a run starts, or resumes, only inside the cluster's change windows
(slack.changeWindows or its access.changeWindows) and only while no other rollout holds the cluster's lock. The
channel and requester lists name Slack users and channels, so they do not apply to a terminal.

Exit codes: 0 every worker settled on the target; 1 aborted, failed, locked, interrupted, or a step continued
without a passed gate (or without its worker); 2 usage error; 3 timed out (--timeout).

Options:
  --config FILE      configuration file (default: connect-roll.yml)
  --yes              approve every prompt but a second restart's
  --approve KINDS    approve only these prompt kinds (comma-separated)
  --json             one JSON object per event on stdout, then {"kind":"summary",…}
  --pace PACE        safe, window or rotate: override the cluster's pace
  --chart FILE       write the rollout's timeline chart (lanes per worker, windows, deadlines, approvals, share
                     of tasks down) to FILE when the run ends or is interrupted; .svg or .png
  --timeout D        stop at the next safe point once D has passed (30m, 2h, 1h30m); exit 3
  --since TIME       plain restart: workers whose process started at or after TIME (ISO-8601 or epoch ms) count as
                     restarted (an interrupted run prints it in its resume command; default: this run's start)
  -h, --help         show this help`,
  options: {
    config: { type: "string", default: "connect-roll.yml" },
    yes: { type: "boolean", default: false },
    approve: { type: "string" },
    json: { type: "boolean", default: false },
    pace: { type: "string" },
    since: { type: "string" },
    chart: { type: "string" },
    timeout: { type: "string" },
  },
  positionals: { min: 2, max: 2, names: ["CLUSTER", "VERSION"] },
  run: runRollout,
};

/**
 * `run CLUSTER VERSION`, or (with `rollback`) the rollback `connect-roll rollback` found: the same checks, store,
 * engine and report; a rollback's target names its workers and order, and its resume command is `rollback` again.
 */
export async function runRollout(
  values: Record<string, unknown>,
  positionals: readonly string[],
  io: CliIo,
  rollback?: FoundRollback,
): Promise<number> {
  const parsed = parseRunFlags(values, positionals);
  if (parsed.kind === "usage") return fail(io, parsed.message, ExitCode.Usage);
  const { flags } = parsed;
  let env: ReturnType<typeof readEnv>;
  try {
    env = readEnv(io.env);
  } catch (e) {
    return fail(io, (e as Error).message, ExitCode.Failed);
  }
  const ctx = await loadClusterContext(flags.config, flags.cluster, flags.argument, io.env);
  if (ctx.kind === "error") return fail(io, ctx.message, ctx.exitCode);
  const logger = createRootLogger({
    level: env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL,
    pretty: !flags.json && io.stderr.isTTY === true,
  });
  const command = rollback === undefined ? "run" : "rollback";
  const resume = resumeCommand(values, flags.cluster, flags.argument, undefined, command);
  const report = createRunReport({
    io,
    json: flags.json,
    cluster: ctx.name,
    argument: flags.argument,
    resume,
  });
  const user = `${safeUser()}@${hostname()}`;
  const checked = await checkRun(ctx, flags, user, io, logger, rollback);
  if (checked.kind === "refused") return report.refused(checked.reason);
  if (checked.kind === "not-started") return report.notStarted(checked.reason);
  const { reader, restarter } = checked.preflight;
  const opened = await openRunStore(io, env, ctx.config, logger);
  if (opened.kind === "error") {
    await Promise.all([reader.close(), restarter.close()]);
    return report.notStarted(opened.message);
  }
  return runOnStore(
    { io, flags, env, ctx, logger, user, report, rollout: checked.rollout, values, command },
    opened,
    {
      reader,
      restarter,
    },
  );
}

/** A run that passed every check, ready to take the lock: what `runOnStore` needs. */
interface CheckedRun {
  readonly io: CliIo;
  readonly flags: RunFlags;
  readonly env: ReturnType<typeof readEnv>;
  readonly ctx: Extract<ClusterContext, { kind: "ok" }>;
  readonly logger: Logger;
  readonly user: string;
  readonly report: RunReport;
  readonly rollout: PreparedRollout;
  readonly values: Record<string, unknown>;
  readonly command: RunCommandName;
}

/**
 * Runs the checked rollout on the open store: the lock and the store checked, then started (or its interrupted
 * rollout resumed) by the rollout engine, and its outcome reported. The preflight's adapters go to the first run,
 * which closes them; whatever ends the run closes the engine, the store and the adapters left.
 */
async function runOnStore(
  c: CheckedRun,
  opened: Extract<RunStore, { kind: "ok" }>,
  preflighted: { reader: ClusterReader | null; restarter: WorkerRestarter | null },
): Promise<number> {
  const { io, flags, ctx, logger, report } = c;
  const { store, redis } = opened;
  const timeLimit =
    flags.timeoutMs === null ? undefined : { at: systemClock.now() + flags.timeoutMs, ms: flags.timeoutMs };
  const engine = createRolloutEngine({
    store,
    clock: systemClock,
    logger,
    owner: `cli:${hostname()}:${process.pid}`,
    lockTtlMs: c.env.CONNECT_ROLL_LOCK_TTL_MS,
    env: io.env,
    clusterOf: () => ctx.cluster,
    approvals: createCliApprovals({
      policy: flags.policy,
      interactive: io.stdin.isTTY === true && !flags.json,
      input: io.stdin,
      output: io.stderr,
      user: c.user,
      now: Date.now,
      timeLimitMs: flags.timeoutMs,
    }),
    observerOf: () => printRunEvents(io, flags.json, c.rollout.settings),
    prebuilt: () => ({ reader: take(preflighted, "reader"), restarter: take(preflighted, "restarter") }),
    ...(timeLimit === undefined ? {} : { timeLimit }),
  });
  const onInterrupt = () => void engine.close();
  io.signal.addEventListener("abort", onInterrupt, { once: true });
  try {
    const busy = await checkClusterFree(store, ctx.name, logger);
    if (busy) return report.refused(busy);
    const started = await startOrResume(store, engine, c.rollout, flags.since);
    if (started.kind === "refused") return report.refused(started.reason);
    if (started.kind === "other-interrupted") return report.otherInterrupted(started.message);
    if (started.resumedJobId !== null)
      io.stderr.write(
        `connect-roll run: resuming interrupted rollout ${started.resumedJobId} of ${ctx.name} from its checkpoint\n`,
      );
    const outcome = await started.done;
    if (flags.chart !== null)
      await writeChartFile(io, "run", flags.chart, outcome.state, {
        now: Date.now(),
        interrupted: outcome.kind === "lock-lost",
      });
    return reportOutcome(outcome, {
      io,
      json: flags.json,
      values: c.values,
      cluster: ctx.name,
      argument: flags.argument,
      withRedis: redis !== null,
      command: c.command,
    });
  } catch (e) {
    if (!isAppError(e)) throw e;
    return report.storeFailed(e.message, e.retryable);
  } finally {
    io.signal.removeEventListener("abort", onInterrupt);
    await engine.close();
    await Promise.all([preflighted.reader?.close(), preflighted.restarter?.close()]);
    await store.close().catch(() => undefined);
    redis?.disconnect();
  }
}

function fail(io: CliIo, message: string, code: number): number {
  io.stderr.write(`connect-roll run: ${oneLine(message)}\n`);
  return code;
}

/** Hands out a prebuilt adapter once. */
function take<T, K extends keyof T>(built: T, key: K): T[K] {
  const value = built[key];
  built[key] = null as T[K];
  return value;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return "cli";
  }
}
