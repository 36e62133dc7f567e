import { hostname, userInfo } from "node:os";
import { AUDIT_WORDING } from "../../chat/views/rollout-wording.js";
import {
  createReaderFor,
  createRestarterFor,
  restartTargetsFor,
  rolloutSettingsFor,
} from "../../composition/compose-cluster.js";
import { readEnv } from "../../config/env.js";
import type { ClusterReader } from "../../connect/cluster-reader.js";
import { isAppError } from "../../core/errors.js";
import type { RolloutEvent } from "../../core/rollout/rollout-types.js";
import { createRolloutService } from "../../jobs/rollout-service.js";
import { systemClock } from "../../jobs/system-clock.js";
import type { WorkerRestarter } from "../../restart/worker-restarter.js";
import {
  checkClusterFree,
  checkRolloutRequest,
  type PrepareRefusal,
} from "../../usecases/prepare-rollout.js";
import { type ApprovePolicy, createCliApprovals, parseApproveFlag } from "../cli-approvals.js";
import { loadClusterContext, preflightContext } from "../cluster-context.js";
import { type CliCommand, type CliIo, ExitCode } from "../command.js";
import { createRootLogger } from "../create-logger.js";
import { oneLine } from "../one-line.js";
import { planNotes } from "../plan-notes.js";
import { prepareRefusalText } from "../refusal-text.js";
import { renderEventLine } from "../render-event-line.js";
import { eventJson } from "../run-json.js";
import { reportOutcome } from "../run-outcome.js";
import { startOrResume } from "../run-start.js";
import { openRunStore } from "../run-store.js";
import { noRunSummary, parseSince, resumeCommand, writeSummary } from "../run-summary.js";

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

Checks shared with /connect-roll: a run starts, or resumes, only inside the cluster's change windows
(slack.changeWindows or its access.changeWindows) and only while no other rollout holds the cluster's lock. The
channel and requester lists name Slack users and channels, so they do not apply to a terminal.

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
  const resume = resumeCommand(values, clusterName, argument);
  const printSummary = (summary: { readonly result: string }, line: string) =>
    writeSummary(io, json, summary, line);
  /** A use-case's refusal: one summary line (stdout) and one line on stderr. */
  const refuse = (reason: PrepareRefusal): number => {
    const text = prepareRefusalText(reason);
    if (reason.kind === "store-unreachable") {
      const summary = { ...noRunSummary(ctx.name, argument, "interrupted", text), resume };
      printSummary(summary, `${text}; once Redis answers, run: ${resume}`);
    } else
      printSummary(
        noRunSummary(ctx.name, argument, "failed", text),
        reason.kind === "locked" ? text : `not started: ${text}`,
      );
    const usage = reason.kind === "unknown-cluster" || reason.kind === "bad-version";
    return fail(io, text, usage ? ExitCode.Usage : ExitCode.Failed);
  };
  // The checks `/connect-roll` makes, for a terminal user: the change window (no Slack channel or access list names
  // a terminal user; see the README's `run`), then the store and the lock once the store is open.
  const user = `${safeUser()}@${hostname()}`;
  const checked = await checkRolloutRequest(
    {
      config: ctx.config,
      now: Date.now,
      authorizer: null,
      settingsFor: (cluster, p) => rolloutSettingsFor(cluster, p === undefined ? {} : { pace: p }),
    },
    {
      cluster: ctx.name,
      argument,
      ...(pace === undefined ? {} : { pace }),
      requester: { kind: "terminal", user },
    },
  );
  if (checked.kind === "refused") return refuse(checked.reason);
  const rollout = checked.rollout;
  // Everything that can fail is checked before a job or a lock exists: a refusal leaves nothing behind.
  const preflight = await preflightContext(ctx, io, logger, true).catch((e: unknown) => {
    if (io.signal.aborted) return { kind: "error" as const, problems: ["interrupted"] };
    throw e;
  });
  if (preflight.kind === "error") {
    const reason = `cannot start: ${preflight.problems.join("; ")}`;
    printSummary(noRunSummary(ctx.name, argument, "failed", reason), `not started: ${reason}`);
    return fail(io, reason, ExitCode.Failed);
  }
  const built: { reader: ClusterReader | null; restarter: WorkerRestarter | null } = preflight;
  const opened = await openRunStore(io, env, ctx.config, logger);
  if (opened.kind === "error") {
    await Promise.all([preflight.reader.close(), preflight.restarter.close()]);
    printSummary(
      noRunSummary(ctx.name, argument, "failed", opened.message),
      `not started: ${opened.message}`,
    );
    return fail(io, opened.message, ExitCode.Failed);
  }
  const { store, redis } = opened;
  const owner = `cli:${hostname()}:${process.pid}`;
  const write = (obj: unknown) => io.stdout.write(`${JSON.stringify(obj)}\n`);
  const lastGate = new Map<number, string>();
  const planSettings = rollout.settings;
  const onEvent = (event: RolloutEvent) => {
    // What `plan` adds to the engine's findings (a downgrade, why no window formed) is said here too, on stderr.
    if (event.kind === "rollout-planned")
      for (const note of [
        ...planNotes(event.plan, planSettings.planPolicy, planSettings.delayMs),
        ...event.plan.findings.filter((f) => f.code === "downgrade"),
      ])
        io.stderr.write(`connect-roll run: ${note.severity}: ${note.message}\n`);
    if (json) write(eventJson(event));
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
      wording: AUDIT_WORDING,
      onEvent,
    }),
  });
  const onInterrupt = () => void service.close();
  io.signal.addEventListener("abort", onInterrupt, { once: true });
  // Every ending prints one summary line (stdout), whatever happened: a pipeline always learns the result and what
  // to do next.
  try {
    const busy = await checkClusterFree(store, ctx.name, logger);
    if (busy) return refuse(busy);
    const started = await startOrResume(store, service, rollout, since);
    if (started.kind === "refused") return refuse(started.reason);
    if (started.kind === "other-interrupted") {
      fail(io, started.message, ExitCode.Failed);
      printSummary(
        noRunSummary(ctx.name, argument, "failed", "the rollout did not start (see above)"),
        "not started",
      );
      return ExitCode.Failed;
    }
    if (started.resumedJobId !== null)
      io.stderr.write(
        `connect-roll run: resuming interrupted rollout ${started.resumedJobId} of ${ctx.name} from its checkpoint\n`,
      );
    return reportOutcome(await started.done, {
      io,
      json,
      values,
      cluster: ctx.name,
      argument,
      withRedis: redis !== null,
    });
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
