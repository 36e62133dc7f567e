import type { PrepareRefusal } from "../usecases/prepare-rollout.js";
import { prepareRefusalText } from "../wording/refusal-text.js";
import { type CliIo, ExitCode } from "./command.js";
import { oneLine } from "./one-line.js";
import { noRunSummary, writeSummary } from "./run-summary.js";

/**
 * How `run` ends when no rollout ran to its end: one summary line on stdout (the JSON object with --json), whatever
 * happened, so a pipeline always learns the result and what to do next; and one line on stderr. Each returns the
 * exit code. (A rollout that ran: reportOutcome, run-outcome.ts.)
 */
export interface RunReport {
  /** A line on stderr alone (a usage error, a config that does not load). */
  fail(message: string, code: number): number;
  /** A use-case's refusal; a store that does not answer is an interruption to resume once it does. */
  refused(reason: PrepareRefusal): number;
  /** Nothing started: the preflight or the store stood in the way. */
  notStarted(reason: string): number;
  /** Another target's rollout of this cluster is interrupted (`message`: which, and how to finish it). */
  otherInterrupted(message: string): number;
  /** The store failed under the run: retryable (Redis away) is an interruption to resume, anything else a failure. */
  storeFailed(message: string, retryable: boolean): number;
}

export function createRunReport(o: {
  readonly io: CliIo;
  readonly json: boolean;
  readonly cluster: string;
  readonly argument: string;
  /** The command that resumes this run. */
  readonly resume: string;
}): RunReport {
  const { io, json, cluster, argument, resume } = o;
  const summary = (s: { readonly result: string }, line: string) => writeSummary(io, json, s, line);
  function fail(message: string, code: number): number {
    io.stderr.write(`connect-roll run: ${oneLine(message)}\n`);
    return code;
  }
  return {
    fail,
    refused(reason) {
      const text = prepareRefusalText(reason);
      if (reason.kind === "store-unreachable") {
        const interrupted = { ...noRunSummary(cluster, argument, "interrupted", text), resume };
        summary(interrupted, `${text}; once Redis answers, run: ${resume}`);
      } else
        summary(
          noRunSummary(cluster, argument, "failed", text),
          reason.kind === "locked" ? text : `not started: ${text}`,
        );
      const usage = reason.kind === "unknown-cluster" || reason.kind === "bad-version";
      return fail(text, usage ? ExitCode.Usage : ExitCode.Failed);
    },
    notStarted(reason) {
      summary(noRunSummary(cluster, argument, "failed", reason), `not started: ${reason}`);
      return fail(reason, ExitCode.Failed);
    },
    otherInterrupted(message) {
      fail(message, ExitCode.Failed);
      summary(
        noRunSummary(cluster, argument, "failed", "the rollout did not start (see above)"),
        "not started",
      );
      return ExitCode.Failed;
    },
    storeFailed(message, retryable) {
      summary(
        {
          ...noRunSummary(cluster, argument, retryable ? "interrupted" : "failed", message),
          ...(retryable ? { resume } : {}),
        },
        `${message}${retryable ? `; once Redis answers, run: ${resume}` : ""}`,
      );
      return fail(message, ExitCode.Failed);
    },
  };
}
