import { describe, expect, it } from "vitest";
import { escapeMrkdwn } from "../../src/chat/views/limits.js";
import { renderApprovalDecided, renderApprovalPrompt } from "../../src/chat/views/render-approval.js";
import { renderEventLine } from "../../src/cli/render-event-line.js";
import {
  type ApprovalFacts,
  approvalKindOf,
  type Decision,
  type PendingApproval,
} from "../../src/core/rollout/approval-types.js";
import type { GateReason } from "../../src/core/settle/settle-types.js";
import { approvalDetails, approvalPrompt } from "../../src/wording/approval-text.js";
import { blockText } from "../chat/views/block-text.js";
import { aRollout, heldReason, stepStart } from "../chat/views/rollout-state-builder.js";

const slower: GateReason = {
  code: "gate-slow",
  overdueMs: 72_000,
  message: "settling is 1m12s slower than expected",
};
const failedTask: GateReason = {
  code: "task-failed",
  task: "orders-sink/2",
  trace: null,
  message: "orders-sink/2 FAILED: org.apache.kafka.connect.errors.ConnectException: boom",
};

interface Case {
  name: string;
  facts: ApprovalFacts;
  step: number | null;
  options: Decision[];
  prompt: string;
  details: string[];
}

/** Every prompt core asks, by its facts, and the words a person reads. */
const CASES: Case[] = [
  {
    name: "workers started long after the rest",
    facts: {
      kind: "recently-started",
      cluster: "prod-cluster",
      workers: [{ worker: "connect-1", startedAt: Date.UTC(2026, 11, 1, 10, 0, 0) }],
      othersStartedAt: Date.UTC(2026, 10, 28, 10, 0, 40),
      now: Date.UTC(2026, 11, 1, 10, 0, 40),
    },
    step: null,
    options: ["continue", "approve", "abort"],
    prompt:
      "connect-1 started 40s ago, the others 3d00h ago: an interrupted rollout? Count it as restarted (skip), or restart it too?",
    details: [
      "connect-1: process started 2026-12-01T10:00:00.000Z",
      "the other workers started by 2026-11-28T10:00:40.000Z",
      "From a terminal: `connect-roll run … prod-cluster restart --since 2026-12-01T10:00:00.000Z` counts it as restarted.",
    ],
  },
  {
    name: "blocking findings",
    facts: {
      kind: "blocking-findings",
      cluster: "prod-cluster",
      findings: [
        { severity: "block", code: "failed-tasks", message: "1 FAILED before the start (task orders/1)." },
        { severity: "block", code: "worker-unreachable", message: "connect-2 is unreachable: refused." },
      ],
    },
    step: null,
    options: ["approve", "abort"],
    prompt: "The preflight found 2 blocking problems on prod-cluster. Start anyway?",
    details: ["1 FAILED before the start (task orders/1).", "connect-2 is unreachable: refused."],
  },
  {
    name: "eager window",
    facts: { kind: "eager-window", cluster: "prod-cluster", worker: "connect-1" },
    step: 1,
    options: ["approve", "abort"],
    prompt:
      "Restarting connect-1 enters a mixed-version window in which the group runs the eager protocol: every rebalance stops every task in prod-cluster. Proceed?",
    details: [
      "Workers older than 2.3 (or with connect.protocol=eager) only speak the eager protocol; the group negotiates eager until the last of them leaves (see docs/connect-behaviour.md#protocol-negotiation).",
      "Finish this window promptly: every rebalance inside it is stop-the-world.",
    ],
  },
  {
    name: "a worker not back, unreachable",
    facts: {
      kind: "worker-not-back",
      worker: "connect-3",
      targetVersion: "3.7.1",
      waitedMs: 129_000,
      seen: { reachable: false, error: "connection refused" },
      attempts: 1,
    },
    step: 3,
    options: ["restart-again", "continue-without", "keep-waiting", "abort"],
    prompt:
      "connect-3 has not come back on 3.7.1 after 2m09s. Restart it again, continue without it, or abort?",
    details: [
      "it does not answer: connection refused",
      "Restart it again: the executor restarts it once more. Continue without it: the step is skipped, the worker left as it is, and the final report says it was not brought back. Keep waiting: asked again after as long.",
    ],
  },
  {
    name: "a worker not back, answering on another version",
    facts: {
      kind: "worker-not-back",
      worker: "connect-3",
      targetVersion: "3.7.1",
      waitedMs: 600_000,
      seen: { reachable: true, version: null },
      attempts: 2,
    },
    step: 3,
    options: ["restart-again", "continue-without", "keep-waiting", "abort"],
    prompt:
      "connect-3 has not come back on 3.7.1 after 10m00s. Restart it again, continue without it, or abort?",
    details: [
      "it answers, reporting version unknown",
      "restarted 2 times in this rollout",
      "Restart it again: the executor restarts it once more. Continue without it: the step is skipped, the worker left as it is, and the final report says it was not brought back. Keep waiting: asked again after as long.",
    ],
  },
  {
    name: "a slow gate",
    facts: {
      kind: "gate-slow",
      worker: "connect-3",
      elapsedMs: 492_000,
      reasons: [heldReason("connect-3", 14, 0), slower],
    },
    step: 3,
    options: ["keep-waiting", "continue", "abort"],
    prompt:
      "The cluster has not settled after restarting connect-3 (8m12s so far, delay included). Keep waiting?",
    details: [heldReason("connect-3", 14, 0).message, "settling is 1m12s slower than expected"],
  },
  {
    name: "a stall: tasks RUNNING and moving no data",
    facts: {
      kind: "gate-slow",
      worker: "connect-3",
      elapsedMs: 95_000,
      reasons: [
        {
          code: "data-stalled",
          tasks: [
            {
              task: "orders-source/4",
              connector: "orders-source",
              lastMovedAt: Date.UTC(2026, 11, 1, 20, 41, 7),
              quietMs: 65_000,
            },
            { task: "orders-sink/2", connector: "orders-sink", lastMovedAt: null, quietMs: 61_000 },
          ],
          message: "2 tasks RUNNING with no data for over 1m00s (orders-source/4 1m05s, orders-sink/2 1m01s)",
        },
      ],
    },
    step: 3,
    options: ["keep-waiting", "continue", "abort"],
    prompt: "After restarting connect-3, 2 tasks are RUNNING but moving no data. Keep waiting?",
    details: [
      "orders-source/4 (connector orders-source): no data for 1m05s, last moved data at 20:41:07 UTC",
      "orders-sink/2 (connector orders-sink): no data for 1m01s, no data seen since the rollout began",
    ],
  },
  {
    name: "a failed gate",
    facts: { kind: "gate-failed", worker: "connect-3", reasons: [failedTask] },
    step: 3,
    options: ["continue", "abort"],
    prompt: "The settle gate failed after restarting connect-3. Continue with the next worker anyway?",
    details: ["orders-sink/2 FAILED: org.apache.kafka.connect.errors.ConnectException: boom"],
  },
  {
    name: "connector config changed",
    facts: {
      kind: "config-changed",
      cluster: "prod-cluster",
      changes: [
        { kind: "deleted", connector: "legacy" },
        { kind: "task-count", connector: "orders", before: 6, after: 8 },
        { kind: "config", connector: "clicks" },
        { kind: "created", connector: "audit" },
      ],
    },
    step: 2,
    options: ["continue", "abort"],
    prompt:
      "Connector configuration changed during the rollout of prod-cluster. Continue with the new configuration?",
    details: [
      "connector legacy was deleted",
      "connector orders: task count 6 → 8",
      "connector clicks: configuration changed",
      "connector audit was created",
    ],
  },
  {
    name: "a restart failed before anything ran",
    facts: { kind: "restart-failed", worker: "connect-3", error: "executor said no", mayHaveRun: false },
    step: 3,
    options: ["approve", "abort"],
    prompt: "Restarting connect-3 failed. Retry the restart?",
    details: ["executor said no"],
  },
  {
    name: "a restart that may have run partly",
    facts: { kind: "restart-failed", worker: "connect-3", error: "timed out after 60s", mayHaveRun: true },
    step: 3,
    options: ["approve", "abort"],
    prompt: "Restarting connect-3 failed (it may have run partly). Retry the restart?",
    details: ["timed out after 60s", "Check the worker before retrying: the executor may have acted."],
  },
  {
    name: "a restart unconfirmed, the worker answering",
    facts: { kind: "restart-unconfirmed", worker: "connect-3", seen: { reachable: true, version: "3.6.1" } },
    step: 3,
    options: ["approve", "abort"],
    prompt: "A restart of connect-3 was issued before a takeover but cannot be confirmed. Restart it again?",
    details: [
      "connect-3 answers and reports 3.6.1",
      "connect-roll never repeats a restart it cannot confirm without asking.",
    ],
  },
  {
    name: "a restart unconfirmed, the worker silent",
    facts: { kind: "restart-unconfirmed", worker: "connect-3", seen: { reachable: false, error: null } },
    step: 3,
    options: ["approve", "abort"],
    prompt: "A restart of connect-3 was issued before a takeover but cannot be confirmed. Restart it again?",
    details: [
      "connect-3 does not answer",
      "connect-roll never repeats a restart it cannot confirm without asking.",
    ],
  },
  {
    name: "exactly-once tasks FAILED on a fencing error",
    facts: {
      kind: "task-restart",
      worker: "connect-2",
      tasks: [
        {
          task: "orders/1",
          workerId: "10.0.0.2:8083",
          trace: "org.apache.kafka.connect.errors.ConnectException: Failed to perform zombie fencing",
        },
      ],
      reasons: [
        {
          code: "task-failed",
          task: "orders/1",
          trace: null,
          message:
            "orders/1 FAILED: org.apache.kafka.connect.errors.ConnectException: Failed to perform zombie fencing",
        },
      ],
    },
    step: 2,
    options: ["restart-tasks", "continue", "abort"],
    prompt:
      "After restarting connect-2, 1 exactly-once task FAILED on a fencing error. Restart the failed tasks and keep waiting?",
    details: [
      "orders/1 FAILED on 10.0.0.2:8083: org.apache.kafka.connect.errors.ConnectException: Failed to perform zombie fencing",
      "Restart the failed tasks: POST /connectors/{name}/tasks/{id}/restart for each, and the gate keeps waiting for them to commit a transaction; continue: the next worker anyway; abort: nothing more.",
    ],
  },
];

function asked(c: Case): PendingApproval {
  return {
    id: "job-01HX:a1",
    kind: approvalKindOf(c.facts),
    step: c.step,
    facts: c.facts,
    options: c.options,
    askedAt: c.step === null ? stepStart(1) : stepStart(c.step),
  };
}

describe("approval text: the views word what core asks", () => {
  it.each(CASES)("$name", (c) => {
    expect(approvalPrompt(asked(c))).toBe(c.prompt);
    expect(approvalDetails(asked(c))).toEqual(c.details);
  });

  it.each(CASES)("$name: the Slack prompt and its decided form carry the words", (c) => {
    const state = aRollout().settledThrough(2).build();
    const a = asked(c);
    const record = {
      id: a.id,
      kind: a.kind,
      step: a.step,
      decision: c.options[0] ?? "abort",
      by: "U2",
      at: stepStart(3),
    };
    for (const message of [renderApprovalPrompt(state, a), renderApprovalDecided(state, a, record)]) {
      const text = blockText(message);
      expect(text).toContain(escapeMrkdwn(c.prompt));
      for (const detail of c.details) expect(text).toContain(`• ${escapeMrkdwn(detail)}`);
    }
  });

  it.each(CASES)("$name: the `connect-roll run` line", (c) => {
    expect(renderEventLine({ kind: "approval-requested", approval: asked(c) }, new Map())).toBe(
      `approval needed (${approvalKindOf(c.facts)}): ${c.prompt}${c.details.map((d) => `\n    ${d}`).join("")}`,
    );
  });
});
