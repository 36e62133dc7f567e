import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type {
  FinishReason,
  NotStarted,
  ReorderReason,
  SkipReason,
  StepNote,
  UnsettledStart,
} from "../core/rollout/rollout-reasons.js";
import { canaryFindingText } from "./canary-text.js";

/**
 * The words for the facts core returns about a rollout (core/rollout/rollout-reasons.ts): why it finished, why a step
 * was skipped or moved, a step's note. Plain text (unescaped): the Slack views escape it, the terminal
 * (`connect-roll run`, its `--json` lines and summary) and the audit trail print it as it is.
 */

/** "aborted by U2 before step 3", "every worker was restarted and the cluster settled after each step". */
export function finishReasonText(reason: FinishReason): string {
  switch (reason.kind) {
    case "all-settled":
      return "every worker was restarted and the cluster settled after each step";
    case "nothing-to-do":
      return "every worker already runs the target version; nothing to do";
    case "continued-unsettled":
      return `every worker was restarted, but ${reason.workers.join(", ")} continued without a passed settle gate (by approval)`;
    case "canary-rolled-back":
      return `the canary ${reason.worker} did worse than the old workers (${reason.findings.map(canaryFindingText).join("; ") || "no finding recorded"}) and was rolled back to ${reason.from}${reason.rolledBack.length > 1 ? ` with ${reason.rolledBack.filter((w) => w !== reason.worker).join(", ")}, which crossed with it` : ""}${reason.notRestarted.length > 0 ? `; not restarted: ${reason.notRestarted.join(", ")}` : ""}`;
    case "unsettled-at-end":
      return `every worker was restarted, but ${plural(reason.tasks.length, "task")} did not run on a live worker within ${formatDuration(reason.waitedMs)} after the last step (${taskList(reason.tasks)})`;
    case "connectors-unreadable":
      return `cannot read the connectors of ${reason.cluster}: ${reason.error ?? "no worker answered"}; nothing was restarted`;
    case "unsettled-at-start":
      return `the cluster did not settle before the start (${unsettledStartText(reason.unsettled)}) within ${formatDuration(reason.waitedMs)}; nothing was restarted. Start again once it has settled`;
    case "worker-not-found":
      return `${reason.worker} is not a worker of ${reason.cluster}`;
    case "aborted":
      return `aborted by ${reason.by}`;
    case "aborted-before-step":
      return `aborted by ${reason.by} before step ${reason.step}`;
    case "aborted-while-settling": {
      const gate = reason.gate.map((r) => r.message).join("; ") || "no reason recorded";
      return `aborted by ${reason.by} while ${reason.worker ?? "a worker"} was settling (it is back; the gate had not passed: ${gate})`;
    }
    case "aborted-at-prompt":
      return `aborted by ${reason.by} at the ${reason.approval} prompt`;
    case "not-brought-back": {
      const continued =
        reason.continued.length === 0
          ? ""
          : `, and ${reason.continued.join(", ")} continued without a passed settle gate`;
      return `every other worker was restarted, but ${reason.notBack.join(", ")} ${reason.notBack.length === 1 ? "was" : "were"} not brought back (continued without by approval)${continued}`;
    }
    case "timed-out":
      return timedOutText(reason);
  }
}

/**
 * "timed out after 30m: worker-2 was restarted and is not back; not restarted: worker-3, worker-4": the limit, the step
 * in flight and what was left undone.
 */
function timedOutText(reason: Extract<FinishReason, { kind: "timed-out" }>): string {
  const parts = [`timed out after ${formatDuration(reason.limitMs)}`];
  const f = reason.inFlight;
  if (f !== null)
    parts.push(
      f.stage === "not-back"
        ? `${f.worker} was restarted and is not back`
        : f.stage === "settling"
          ? `${f.worker} is back but its settle gate had not passed`
          : `the restart of ${f.worker} failed and was not retried`,
    );
  parts.push(
    reason.notRestarted.length === 0
      ? "no worker left unrestarted"
      : `not restarted: ${reason.notRestarted.join(", ")}`,
  );
  return `${parts[0]}: ${parts.slice(1).join("; ")}`;
}

const MAX_NOT_STARTED = 5;

/** Why the first read was no baseline: "not started yet: orders/0 UNASSIGNED, … and 3 more". */
export function unsettledStartText(unsettled: UnsettledStart): string {
  switch (unsettled.kind) {
    case "no-connectors-unconfirmed":
      return "the cluster shows no connectors, and its workers' metrics do not confirm it is empty";
    case "not-started": {
      const { items } = unsettled;
      const more = items.length > MAX_NOT_STARTED ? ` and ${items.length - MAX_NOT_STARTED} more` : "";
      return `not started yet: ${items.slice(0, MAX_NOT_STARTED).map(notStartedText).join(", ")}${more}`;
    }
    case "rebalancing":
      return `rebalancing: ${unsettled.workers.join(", ")}`;
  }
}

function notStartedText(item: NotStarted): string {
  return `${item.task === null ? item.connector : `${item.connector}/${item.task}`} ${item.state}`;
}

/** After a write-back of the rollout's lost record: who may have done the restart found. */
const WHILE_LOST =
  ", found after its record was lost and written back: by this rollout while its record was lost, a crash, or someone else";

/** "already runs 3.7.1", "already restarted since the rollout began (process started 2024-…Z)". */
export function skipReasonText(reason: SkipReason): string {
  switch (reason.kind) {
    case "on-target":
      return `already runs ${reason.version}${reason.afterRecordLost ? WHILE_LOST : ""}`;
    case "restarted-since-start":
      return `already restarted since the rollout began (process started ${new Date(reason.startedAt).toISOString()})${reason.afterRecordLost ? WHILE_LOST : ""}`;
    case "not-back":
      return `not brought back: restarted, not back after ${formatDuration(reason.waitedMs)}; ${reason.by} continued without it`;
  }
}

/** Why a step moved to the end of the order, or forward to now. */
export function reorderReasonText(reason: ReorderReason): string {
  switch (reason.kind) {
    case "leader-now":
      return "it is the group leader now; the leader is restarted last";
    case "leader-first":
      return "it is the group leader now; pace rotate restarts the leader next, and a new leader hands its tasks out at once";
  }
}

/** A step's note: its skip reason, who continued it, the executor's error, how its window went. */
export function stepNoteText(note: StepNote): string {
  switch (note.kind) {
    case "on-target":
    case "restarted-since-start":
    case "not-back":
      return skipReasonText(note);
    case "continued":
      return `continued by ${note.by} without a passed gate`;
    case "restart-failed":
      return note.error;
    case "crossed-in-window":
      return "rejoined inside the scheduled-delay window; the settle gate runs once the window's last worker is back";
    case "window-cut-short":
      return `the next worker would not be back before the window's deadline: the window ends here and ${plural(note.remaining, "remaining worker is", "remaining workers are")} grouped again`;
    case "canary-rollback":
      return `the canary, returned to ${note.version} after its soak failed`;
    case "after-canary-rollback":
      return `not restarted: the canary ${note.worker} failed its soak and was rolled back`;
  }
}

/** The words the runner's audit trail takes (`AuditWording` in src/jobs/runner/runner-deps.ts), from the composition root. */
export const AUDIT_WORDING = { finishReason: finishReasonText, skipReason: skipReasonText } as const;

/** "conn-02/0 UNASSIGNED, conn-03/1 RUNNING@worker-3 (gone)", the first five, then how many more. */
function taskList(tasks: readonly { task: string; state: string; workerId: string | null }[]): string {
  const named = tasks
    .slice(0, 5)
    .map((t) => (t.workerId === null ? `${t.task} ${t.state}` : `${t.task} ${t.state}@${t.workerId}`));
  return tasks.length > 5 ? `${named.join(", ")} and ${tasks.length - 5} more` : named.join(", ");
}
