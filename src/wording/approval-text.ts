import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type {
  ApprovalFacts,
  FreezeChange,
  PendingApproval,
  WorkerSeen,
} from "../core/rollout/approval-types.js";
import type { GateReason } from "../core/settle/settle-types.js";
import { canaryFiguresText, canaryFindingText } from "./canary-text.js";

/**
 * The wording of approval prompts, from the facts core asks with: a one-sentence title and lines of detail, plain
 * text (unescaped). The Slack prompt (render-approval.ts) escapes them; the terminal (`connect-roll run`) prints and
 * asks them as they are.
 */

/** The prompt's one sentence, e.g. "Restarting connect-3 failed. Retry the restart?". */
export function approvalPrompt(approval: PendingApproval): string {
  return promptOf(approval.facts);
}

/** The prompt's lines of detail (findings, gate reasons, changed connectors, what the worker answers). */
export function approvalDetails(approval: PendingApproval): readonly string[] {
  return detailsOf(approval.facts);
}

const EAGER_WINDOW_DETAILS: readonly string[] = [
  "Workers older than 2.3 (or with connect.protocol=eager) only speak the eager protocol; the group negotiates eager until the last of them leaves (see docs/connect-behaviour.md#protocol-negotiation).",
  "Finish this window promptly: every rebalance inside it is stop-the-world.",
];

function promptOf(f: ApprovalFacts): string {
  switch (f.kind) {
    case "blocking-findings":
      return `The preflight found ${plural(f.findings.length, "blocking problem")} on ${f.cluster}. Start anyway?`;
    case "eager-window":
      return `Restarting ${f.worker} enters a mixed-version window in which the group runs the eager protocol: every rebalance stops every task in ${f.cluster}. Proceed?`;
    case "worker-not-back":
      return `${f.worker} has not come back on ${f.targetVersion} after ${formatDuration(f.waitedMs)}. Restart it again, continue without it, or abort?`;
    case "gate-slow": {
      const stalled = stalledTasks(f.reasons);
      if (stalled.length > 0)
        return `After restarting ${f.worker}, ${plural(stalled.length, "task is", "tasks are")} RUNNING but moving no data. Keep waiting?`;
      return `The cluster has not settled after restarting ${f.worker} (${formatDuration(f.elapsedMs)} so far, delay included). Keep waiting?`;
    }
    case "gate-failed":
      return `The settle gate failed after restarting ${f.worker}. Continue with the next worker anyway?`;
    case "config-changed":
      return `Connector configuration changed during the rollout of ${f.cluster}. Continue with the new configuration?`;
    case "restart-failed":
      return `Restarting ${f.worker} failed${f.mayHaveRun ? " (it may have run partly)" : ""}. Retry the restart?`;
    case "restart-unconfirmed":
      return `A restart of ${f.worker} was issued before a takeover but cannot be confirmed. Restart it again?`;
    case "task-restart":
      return `After restarting ${f.worker}, ${plural(f.tasks.length, "exactly-once task")} FAILED on a fencing error. Restart the failed tasks and keep waiting?`;
    case "canary":
      return `The canary ${f.worker} did worse on ${f.version} than the workers still on ${f.from ?? "the old version"}: ${f.findings[0] ? canaryFindingText(f.findings[0]) : "see below"}. ${f.from ? `Roll it back to ${f.from}, continue, or abort?` : "Continue, or abort?"}`;
    case "recently-started":
      return `${recentList(f)} started ${formatDuration(f.now - Math.max(...f.workers.map((w) => w.startedAt)))} ago, the others ${formatDuration(f.now - f.othersStartedAt)} ago: an interrupted rollout? Count ${f.workers.length === 1 ? "it" : "them"} as restarted (skip), or restart ${f.workers.length === 1 ? "it" : "them"} too?`;
  }
}

function detailsOf(f: ApprovalFacts): readonly string[] {
  switch (f.kind) {
    case "blocking-findings":
      return f.findings.map((x) => x.message);
    case "eager-window":
      return EAGER_WINDOW_DETAILS;
    case "worker-not-back":
      return [
        f.seen.reachable
          ? `it answers, reporting version ${f.seen.version ?? "unknown"}`
          : `it does not answer: ${f.seen.error ?? "unreachable"}`,
        ...(f.attempts > 1 ? [`restarted ${f.attempts} times in this rollout`] : []),
        "Restart it again: the executor restarts it once more. Continue without it: the step is skipped, the worker left as it is, and the final report says it was not brought back. Keep waiting: asked again after as long.",
      ];
    case "gate-slow":
      return [
        ...stalledTasks(f.reasons).map(
          (t) =>
            `${t.task} (connector ${t.connector}): no data for ${formatDuration(t.quietMs)}, ${t.lastMovedAt === null ? "no data seen since the rollout began" : `last moved data at ${clockTime(t.lastMovedAt)}`}`,
        ),
        ...f.reasons.filter((r) => r.code !== "data-stalled").map((r) => r.message),
      ];
    case "gate-failed":
      return f.reasons.map((r) => r.message);
    case "config-changed":
      return f.changes.map(freezeChangeLine);
    case "restart-failed":
      return [
        f.error,
        ...(f.mayHaveRun ? ["Check the worker before retrying: the executor may have acted."] : []),
      ];
    case "restart-unconfirmed":
      return [
        seenLine(f.worker, f.seen),
        "connect-roll never repeats a restart it cannot confirm without asking.",
      ];
    case "task-restart":
      return [
        ...f.tasks.map((t) => `${t.task} FAILED on ${t.workerId ?? "no worker"}: ${t.trace ?? "no trace"}`),
        "Restart the failed tasks: POST /connectors/{name}/tasks/{id}/restart for each, and the gate keeps waiting for them to commit a transaction; continue: the next worker anyway; abort: nothing more.",
        ...f.reasons.filter((r) => r.code !== "task-failed").map((r) => r.message),
      ];
    case "canary":
      return [
        ...f.findings.map(canaryFindingText),
        ...(f.figures ? [canaryFiguresText(f.figures)] : []),
        ...(f.from
          ? [
              `Roll back: ${f.worker} is restarted on ${f.from} through the same gate, no other worker is restarted, and the rollout ends failed. Continue: the next worker on ${f.version} anyway. Abort: nothing more; ${f.worker} stays on ${f.version}.`,
            ]
          : []),
      ];
    case "recently-started":
      return [
        ...f.workers.map((w) => `${w.worker}: process started ${isoTime(w.startedAt)}`),
        `the other workers started by ${isoTime(f.othersStartedAt)}`,
        `From a terminal: \`connect-roll run … ${f.cluster} restart --since ${isoTime(Math.min(...f.workers.map((w) => w.startedAt)))}\` counts ${f.workers.length === 1 ? "it" : "them"} as restarted.`,
      ];
  }
}

/** "worker-1" or "worker-1 and worker-3". */
function recentList(f: Extract<ApprovalFacts, { kind: "recently-started" }>): string {
  const names = f.workers.map((w) => w.worker);
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** "2026-12-01T10:00:00.000Z": what `--since` takes. */
function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

function stalledTasks(reasons: readonly GateReason[]) {
  return reasons.flatMap((r) => (r.code === "data-stalled" ? r.tasks : []));
}

/** "20:41:07 UTC". */
function clockTime(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 19)} UTC`;
}

function seenLine(worker: string, seen: WorkerSeen): string {
  return seen.reachable
    ? `${worker} answers and reports ${seen.version ?? "an unknown version"}`
    : `${worker} does not answer`;
}

/** "connector orders: task count 6 → 8", "connector audit was created". */
function freezeChangeLine(change: FreezeChange): string {
  switch (change.kind) {
    case "deleted":
      return `connector ${change.connector} was deleted`;
    case "task-count":
      return `connector ${change.connector}: task count ${change.before} → ${change.after}`;
    case "config":
      return `connector ${change.connector}: configuration changed`;
    case "created":
      return `connector ${change.connector} was created`;
  }
}
