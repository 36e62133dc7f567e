import { plural } from "../core/plural.js";
import { rollbackOf } from "../core/rollout/rollback-of.js";
import { summarizeRollout } from "../core/rollout/summarize.js";
import type { RunOutcome } from "../jobs/runner/runner-deps.js";
import { stepExactlyOnceText } from "../wording/exactly-once-text.js";
import { planVsRealityText } from "../wording/summary-text.js";
import { type CliIo, ExitCode } from "./command.js";
import { wordedSummary } from "./run-json.js";
import { type RunCommandName, resumeCommand, writeSummary } from "./run-summary.js";

export interface OutcomeContext {
  readonly io: CliIo;
  readonly json: boolean;
  /** The command's flags (for the resume command). */
  readonly values: Record<string, unknown>;
  readonly cluster: string;
  readonly argument: string;
  /** The checkpoint outlives this process only in Redis. */
  readonly withRedis: boolean;
  /** The command that started the run (default `run`): the resume command repeats it. */
  readonly command?: RunCommandName;
}

/**
 * How a run that started ended: plan vs reality and the summary line on stdout, what to do next on stderr, and the
 * exit code (0 only when every worker settled on the target: a step continued past its gate by a person is not; 3
 * when `--timeout` stopped it).
 */
export function reportOutcome(outcome: RunOutcome, c: OutcomeContext): number {
  const { io } = c;
  const base = wordedSummary(summarizeRollout(outcome.state, Date.now()), outcome.state);
  const interrupted = outcome.kind === "lock-lost";
  const target = outcome.state.target;
  const resume = resumeCommand(
    c.values,
    c.cluster,
    c.argument,
    target.kind === "restart" ? (target.since ?? outcome.state.startedAt) : undefined,
    c.command,
  );
  const phase = outcome.state.phase;
  const timedOut = phase.kind === "finished" && phase.reason.kind === "timed-out" ? phase.reason : null;
  const summary = interrupted
    ? { ...base, result: "interrupted" as const, resume }
    : timedOut
      ? {
          ...base,
          timedOutAfterMs: timedOut.limitMs,
          leftUndone: [...(timedOut.inFlight ? [timedOut.inFlight.worker] : []), ...timedOut.notRestarted],
        }
      : base;
  if (!c.json && summary.planVsReality !== null)
    io.stdout.write(`plan vs reality: ${planVsRealityText(summary.planVsReality)}\n`);
  if (!c.json)
    for (const s of summary.steps) {
      const line = stepExactlyOnceText(s.worker, s.exactlyOnce);
      if (line !== null) io.stdout.write(`exactly-once: step ${s.step}: ${line}\n`);
    }
  writeSummary(
    io,
    c.json,
    summary,
    `${timedOut && base.reason !== null ? `${base.reason}; ` : ""}${summary.totals.stepsDone}/${plural(summary.totals.stepsTotal, "step")}, ${plural(summary.totals.tasksMoved, "task")} moved; cluster: ${summary.clusterState}${interrupted ? `; resume with: ${resume}` : ""}`,
  );
  if (timedOut) {
    io.stderr.write(`connect-roll run: ${base.reason ?? "timed out"}
`);
    return ExitCode.TimedOut;
  }
  if (interrupted) {
    io.stderr.write(
      io.signal.aborted
        ? c.withRedis
          ? `connect-roll run: interrupted; the rollout's checkpoint is kept: resume it with: ${resume}\n`
          : `connect-roll run: interrupted; without Redis the checkpoint ends with this process: check the cluster (connect-roll plan --config ${String(c.values.config)} ${c.cluster} ${c.argument}) before running again\n`
        : `connect-roll run: the cluster lock was lost (Redis unreachable until the lease expired, or the lock was released or taken over); this run stopped without further restarts. If no other run or bot took it over, resume with: ${resume}\n`,
    );
    return ExitCode.Failed;
  }
  const unsettled = summary.steps.filter((s) => s.status !== "settled" && s.status !== "skipped");
  if (summary.result === "succeeded" && unsettled.length > 0) {
    io.stderr.write(
      `connect-roll run: finished, but ${unsettled.map((s) => s.worker).join(", ")} did not pass the settle gate (continued by approval)\n`,
    );
    return ExitCode.Failed;
  }
  if (summary.result !== "succeeded") {
    const plan = rollbackOf(outcome.state);
    if (plan.kind === "rollback" && c.withRedis)
      io.stderr.write(
        `connect-roll run: to return ${plan.target.workers.join(", ")} to ${plan.version} (newest move first): connect-roll rollback --config ${String(c.values.config)} ${c.cluster}\n`,
      );
  }
  return summary.result === "succeeded" ? ExitCode.Ok : ExitCode.Failed;
}
