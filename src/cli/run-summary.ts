import type { CliIo } from "./command.js";

/** What `run` prints at its end, whatever happened: a pipeline always learns the result and what to do next. */

/** The summary line: the JSON object with --json, else `summary: RESULT: line`. */
export function writeSummary(
  io: CliIo,
  json: boolean,
  summary: { readonly result: string },
  line: string,
): void {
  io.stdout.write(json ? `${JSON.stringify(summary)}\n` : `summary: ${summary.result}: ${line}\n`);
}

/** The summary of a run that ended before (or without) a rollout state. */
export function noRunSummary(
  cluster: string,
  target: string,
  result: "failed" | "interrupted",
  reason: string,
) {
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

/** `--since`: ISO-8601 or epoch ms; null when it is neither. */
export function parseSince(text: string): number | null {
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

/** The command that resumes this run: the same cluster, target and flags. */
/** The command a run was started with: `run CLUSTER VERSION` or `rollback CLUSTER`. */
export type RunCommandName = "run" | "rollback";

export function resumeCommand(
  values: Record<string, unknown>,
  cluster: string,
  argument: string,
  since = typeof values.since === "string" ? parseSince(values.since) : null,
  command: RunCommandName = "run",
): string {
  // A rollback is resumed by asking for it again: it finds its own unfinished job.
  const parts =
    command === "rollback"
      ? ["connect-roll", "rollback", "--config", String(values.config), cluster]
      : ["connect-roll", "run", "--config", String(values.config), cluster, argument];
  // A plain restart resumed after the store lost the job: workers started since the first run's start are done.
  if (since !== null && since !== undefined) parts.push("--since", new Date(since).toISOString());
  if (values.yes === true) parts.push("--yes");
  else if (typeof values.approve === "string") parts.push(`--approve=${values.approve}`);
  if (typeof values.pace === "string") parts.push("--pace", values.pace);
  if (values.json === true) parts.push("--json");
  if (typeof values.chart === "string") parts.push("--chart", values.chart);
  if (typeof values.timeout === "string") parts.push("--timeout", values.timeout);
  return parts.join(" ");
}
