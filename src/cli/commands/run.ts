import { hostname, userInfo } from "node:os";
import {
  createReaderFor,
  createRestarterFor,
  restartTargetsFor,
  rolloutSettingsFor,
} from "../../composition/compose-cluster.js";
import { preflightCluster } from "../../composition/preflight.js";
import { readEnv } from "../../config/env.js";
import type { ClusterReader } from "../../connect/cluster-reader.js";
import { AppError, isAppError } from "../../core/errors.js";
import { planVsRealityText } from "../../core/rollout/plan-vs-reality.js";
import type { RolloutEvent } from "../../core/rollout/rollout-types.js";
import { summarizeRollout } from "../../core/rollout/summarize.js";
import type { JobStore } from "../../jobs/job-store.js";
import { createMemoryJobStore } from "../../jobs/memory-job-store.js";
import { createRedisJobStore } from "../../jobs/redis-job-store.js";
import { applyRedisChecks } from "../../jobs/redis-settings-check.js";
import { rolloutStateOf } from "../../jobs/rollout-record.js";
import { createRolloutService } from "../../jobs/rollout-service.js";
import type { RunOutcome } from "../../jobs/runner.js";
import { systemClock } from "../../jobs/system-clock.js";
import type { WorkerRestarter } from "../../restart/worker-restarter.js";
import { type ApprovePolicy, createCliApprovals, parseApproveFlag } from "../cli-approvals.js";
import { loadClusterContext } from "../cluster-context.js";
import { type CliCommand, type CliIo, ExitCode } from "../command.js";
import { createRootLogger } from "../create-logger.js";
import { connectRedis, createRedisClient } from "../create-redis.js";
import { oneLine } from "../one-line.js";
import { planNotes } from "../plan-notes.js";
import { renderEventLine } from "../render-event-line.js";

export const runCommand: CliCommand = {
  name: "run",
  summary: "run a rollout from a terminal or a pipeline (same engine as the bot)",
  help: `Usage: connect-roll run [--config FILE] CLUSTER VERSION [--yes | --approve=KINDS] [--json] [--pace safe|window]

Runs the rollout: one worker at a time, followers first and the group leader last, each step followed by the
settle gate. The Slack thread becomes lines on stdout (or JSON lines with --json, ending with a summary).

Approvals: --yes answers every prompt with its "go" choice except the ones that may restart a worker a second
time (a failed or unconfirmed restart): those need the named --approve=restart. --approve=KINDS answers only
those kinds (blocking, eager, slow, gate-failed, config, restart). Other prompts are asked on a terminal;
without a terminal they are answered "abort", so nothing risky happens unattended.

With REDIS_URL (or redis.url in the config) the cluster lock is shared with the bot and other runs, and an
interrupted run (Ctrl-C, a crash) is resumed by running the same command again once its lease has expired.

Exit codes: 0 every worker settled on the target; 1 aborted, failed, locked, interrupted, or a step continued
without a passed gate; 2 usage error.

Options:
  --config FILE      configuration file (default: connect-roll.yml)
  --yes              approve every prompt but a second restart's
  --approve KINDS    approve only these prompt kinds (comma-separated)
  --json             one JSON object per event on stdout, then {"kind":"summary",…}
  --pace safe|window override the cluster's pace
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
  },
  positionals: { min: 2, max: 2, names: ["CLUSTER", "VERSION"] },
  run: runRollout,
};

function fail(io: CliIo, message: string, code: number): number {
  io.stderr.write(`connect-roll run: ${oneLine(message)}\n`);
  return code;
}

async function runRollout(
  values: Record<string, unknown>,
  positionals: readonly string[],
  io: CliIo,
): Promise<number> {
  const [clusterName = "", argument = ""] = positionals;
  let policy: ApprovePolicy = { kind: "some", kinds: new Set() };
  if (values.yes === true) policy = { kind: "all" };
  else if (typeof values.approve === "string") {
    const parsed = parseApproveFlag(values.approve);
    if (parsed.kind === "error") return fail(io, parsed.message, ExitCode.Usage);
    policy = { kind: "some", kinds: parsed.kinds };
  }
  const pace = values.pace;
  if (pace !== undefined && pace !== "safe" && pace !== "window")
    return fail(io, `--pace must be safe or window`, ExitCode.Usage);
  const since = values.since === undefined ? undefined : parseSince(String(values.since));
  if (since === null) return fail(io, "--since must be an ISO-8601 time or epoch ms", ExitCode.Usage);
  let env: ReturnType<typeof readEnv>;
  try {
    env = readEnv(io.env);
  } catch (e) {
    return fail(io, (e as Error).message, ExitCode.Failed);
  }
  const ctx = await loadClusterContext(String(values.config), clusterName, argument, io.env);
  if (ctx.kind === "error") return fail(io, ctx.message, ctx.exitCode);
  const json = values.json === true;
  const logger = createRootLogger({
    level: env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL,
    pretty: !json && io.stderr.isTTY === true,
  });
  // Everything that can fail is checked before a job or a lock exists: a refusal leaves nothing behind.
  const preflight = await preflightCluster({
    name: ctx.name,
    cluster: ctx.cluster,
    env: io.env,
    logger,
    signal: io.signal,
    checkReachable: true,
  }).catch((e: unknown) => {
    if (io.signal.aborted) return { kind: "error" as const, problems: ["interrupted"] };
    throw e;
  });
  if (preflight.kind === "error") {
    const reason = `cannot start: ${preflight.problems.join("; ")}`;
    writeLine(io, json, noRunSummary(ctx.name, argument, "failed", reason), `not started: ${reason}`);
    return fail(io, reason, ExitCode.Failed);
  }
  const built: { reader: ClusterReader | null; restarter: WorkerRestarter | null } = preflight;
  const closeBuilt = () => Promise.all([preflight.reader.close(), preflight.restarter.close()]);
  const redisUrl = env.REDIS_URL ?? ctx.config.redis?.url;
  const redis = redisUrl ? createRedisClient({ url: redisUrl, tls: ctx.config.redis?.tls }, logger) : null;
  let store: JobStore;
  if (redis) {
    let refusal: string | null;
    try {
      await connectRedis(redis, redisUrl ?? "", io.signal);
      refusal = await applyRedisChecks(
        redis,
        env.CONNECT_ROLL_REDIS_CHECKS ?? ctx.config.redis?.checks ?? "warn",
        (f) => io.stderr.write(`connect-roll run: WARNING: ${f.message}\n`),
        env.CONNECT_ROLL_REDIS_PREFIX,
      );
    } catch (e) {
      await closeBuilt();
      const message = (e as Error).message;
      writeLine(io, json, noRunSummary(ctx.name, argument, "failed", message), `not started: ${message}`);
      return fail(io, message, ExitCode.Failed);
    }
    if (refusal !== null) {
      await closeBuilt();
      redis.disconnect();
      writeLine(io, json, noRunSummary(ctx.name, argument, "failed", refusal), `not started: ${refusal}`);
      return fail(io, refusal, ExitCode.Failed);
    }
    store = createRedisJobStore({ redis, prefix: env.CONNECT_ROLL_REDIS_PREFIX });
  } else {
    io.stderr.write(
      "connect-roll run: no REDIS_URL: using an in-process store; this run is not protected against a concurrent rollout from another process\n",
    );
    store = createMemoryJobStore();
  }
  const user = `${safeUser()}@${hostname()}`;
  const owner = `cli:${hostname()}:${process.pid}`;
  const write = (obj: unknown) => io.stdout.write(`${JSON.stringify(obj)}\n`);
  const lastGate = new Map<number, string>();
  const planSettings = rolloutSettingsFor(ctx.cluster, pace === undefined ? {} : { pace });
  const onEvent = (event: RolloutEvent) => {
    // What `plan` adds to the engine's findings (a downgrade, why no window formed) is said here too, on stderr.
    if (event.kind === "rollout-planned")
      for (const note of planNotes(event.plan, planSettings.planPolicy, planSettings.delayMs))
        io.stderr.write(`connect-roll run: ${note.severity}: ${note.message}\n`);
    if (json) write(event.kind === "rollout-planned" ? { kind: event.kind, plan: event.plan } : event);
    else {
      const line = renderEventLine(event, lastGate);
      if (line !== null) io.stdout.write(`${line}\n`);
    }
  };
  const service = createRolloutService({
    store,
    clock: systemClock,
    logger,
    owner,
    lockTtlMs: env.CONNECT_ROLL_LOCK_TTL_MS,
    depsFor: () => ({
      store,
      // The first run uses what the preflight built and checked; the run closes them when it ends.
      reader:
        take(built, "reader") ??
        createReaderFor({ name: ctx.name, cluster: ctx.cluster, env: io.env, logger }),
      restarter:
        take(built, "restarter") ??
        createRestarterFor({ name: ctx.name, cluster: ctx.cluster, env: io.env, logger }),
      clock: systemClock,
      logger,
      approvals: createCliApprovals({
        policy,
        interactive: io.stdin.isTTY === true && !json,
        input: io.stdin,
        output: io.stderr,
        user,
        now: Date.now,
      }),
      workers: restartTargetsFor(ctx.cluster),
      onEvent,
    }),
  });
  const onInterrupt = () => void service.close();
  io.signal.addEventListener("abort", onInterrupt, { once: true });
  const resume = resumeCommand(values, clusterName, argument);
  // Every ending prints one summary line (stdout), whatever happened: a pipeline always learns the result and what
  // to do next.
  const printSummary = (summary: { readonly result: string }, line: string) =>
    writeLine(io, json, summary, line);
  try {
    const done = await startOrResume(io, store, service, ctx, user, {
      ...(pace === undefined ? {} : { pace }),
      ...(since === undefined ? {} : { since }),
    });
    if (typeof done === "number") {
      printSummary(
        noRunSummary(ctx.name, argument, "failed", "the rollout did not start (see above)"),
        "not started",
      );
      return done;
    }
    const outcome = await done;
    const base = summarizeRollout(outcome.state, Date.now());
    const interrupted = outcome.kind === "lock-lost";
    const target = outcome.state.target;
    const resume = resumeCommand(
      values,
      clusterName,
      argument,
      target.kind === "restart" ? (target.since ?? outcome.state.startedAt) : undefined,
    );
    const summary = interrupted ? { ...base, result: "interrupted" as const, resume } : base;
    if (!json && summary.planVsReality !== null)
      io.stdout.write(`plan vs reality: ${planVsRealityText(summary.planVsReality)}\n`);
    printSummary(
      summary,
      `${summary.totals.stepsDone}/${summary.totals.stepsTotal} steps, ${summary.totals.tasksMoved} task(s) moved; cluster: ${summary.clusterState}${interrupted ? `; resume with: ${resume}` : ""}`,
    );
    if (interrupted) {
      io.stderr.write(
        io.signal.aborted
          ? redis
            ? `connect-roll run: interrupted; the rollout's checkpoint is kept: resume it with: ${resume}\n`
            : `connect-roll run: interrupted; without Redis the checkpoint ends with this process: check the cluster (connect-roll plan --config ${String(values.config)} ${ctx.name} ${argument}) before running again\n`
          : `connect-roll run: the cluster lock was lost (Redis unreachable until the lease expired, or the lock was released or taken over); this run stopped without further restarts. If no other run or bot took it over, resume with: ${resume}\n`,
      );
      return ExitCode.Failed;
    }
    // Exit 0 only when every worker settled on the target: a step continued past its gate by a person is not settled.
    const unsettled = summary.steps.filter((s) => s.status !== "settled" && s.status !== "skipped");
    if (summary.result === "succeeded" && unsettled.length > 0) {
      io.stderr.write(
        `connect-roll run: finished, but ${unsettled.map((s) => s.worker).join(", ")} did not pass the settle gate (continued by approval)\n`,
      );
      return ExitCode.Failed;
    }
    return summary.result === "succeeded" ? ExitCode.Ok : ExitCode.Failed;
  } catch (e) {
    if (!isAppError(e)) throw e;
    const unreachable = e.retryable;
    printSummary(
      {
        ...noRunSummary(ctx.name, argument, unreachable ? "interrupted" : "failed", e.message),
        ...(unreachable ? { resume } : {}),
      },
      `${e.message}${unreachable ? `; once Redis answers, run: ${resume}` : ""}`,
    );
    return fail(io, e.message, ExitCode.Failed);
  } finally {
    io.signal.removeEventListener("abort", onInterrupt);
    await service.close();
    await Promise.all([built.reader?.close(), built.restarter?.close()]);
    await store.close().catch(() => undefined);
    redis?.disconnect();
  }
}

/** The command that resumes this run: the same cluster, target and flags. */
function resumeCommand(
  values: Record<string, unknown>,
  cluster: string,
  argument: string,
  since = typeof values.since === "string" ? parseSince(values.since) : null,
): string {
  const parts = ["connect-roll", "run", "--config", String(values.config), cluster, argument];
  // A plain restart resumed after the store lost the job: workers started since the first run's start are done.
  if (since !== null && since !== undefined) parts.push("--since", new Date(since).toISOString());
  if (values.yes === true) parts.push("--yes");
  else if (typeof values.approve === "string") parts.push(`--approve=${values.approve}`);
  if (typeof values.pace === "string") parts.push("--pace", values.pace);
  if (values.json === true) parts.push("--json");
  return parts.join(" ");
}

/** The summary line: the JSON object with --json, else `summary: RESULT: line`. */
function writeLine(io: CliIo, json: boolean, summary: { readonly result: string }, line: string): void {
  io.stdout.write(json ? `${JSON.stringify(summary)}\n` : `summary: ${summary.result}: ${line}\n`);
}

/** `--since`: ISO-8601 or epoch ms; null when it is neither. */
function parseSince(text: string): number | null {
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

/** The summary line of a run that ended before (or without) a rollout state. */
function noRunSummary(cluster: string, target: string, result: "failed" | "interrupted", reason: string) {
  return {
    kind: "summary" as const,
    jobId: null,
    cluster,
    target,
    result,
    reason,
    steps: [],
    totals: { stepsDone: 0, stepsTotal: 0, tasksMoved: 0, taskDowntimeMs: 0 },
  };
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

type Ctx = Extract<Awaited<ReturnType<typeof loadClusterContext>>, { kind: "ok" }>;

/** Resumes this cluster's interrupted rollout of the same target, or starts a new one. A number is an exit code. */
async function startOrResume(
  io: CliIo,
  store: JobStore,
  service: ReturnType<typeof createRolloutService>,
  ctx: Ctx,
  user: string,
  overrides: { pace?: "safe" | "window"; since?: number },
): Promise<Promise<RunOutcome> | number> {
  const orphans = (await store.findOrphans()).filter((j) => j.cluster === ctx.name);
  const other = orphans.find((j) => rolloutStateOf(j).target.argument !== ctx.target.argument);
  if (other) {
    const target = rolloutStateOf(other).target.argument;
    return fail(
      io,
      `${ctx.name} has an interrupted rollout to ${target} (job ${other.id}, ${other.status}); finish it first: connect-roll run ${ctx.name} ${target}`,
      ExitCode.Failed,
    );
  }
  if (orphans.length > 0) {
    const resumed = await service.resumeOrphans((j) => j.cluster === ctx.name);
    const first = resumed[0];
    if (first) {
      io.stderr.write(
        `connect-roll run: resuming interrupted rollout ${first.job.id} of ${ctx.name} from its checkpoint\n`,
      );
      return first.done;
    }
  }
  const started = await service.start({
    cluster: ctx.name,
    target:
      overrides.since !== undefined && ctx.target.kind === "restart"
        ? { ...ctx.target, since: overrides.since }
        : ctx.target,
    image: ctx.image,
    requestedBy: user,
    settings: rolloutSettingsFor(ctx.cluster, overrides),
  });
  if (started.kind === "locked") {
    const h = started.holder;
    throw new AppError(
      "lock/held",
      `${ctx.name} is locked by job ${h.jobId} (${h.owner}) since ${new Date(h.since).toISOString()}; wait for it or check /connect-roll status`,
    );
  }
  return started.done;
}
