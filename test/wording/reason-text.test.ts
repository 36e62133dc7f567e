import { describe, expect, it } from "vitest";
import type {
  FinishReason,
  ReorderReason,
  SkipReason,
  StepNote,
  UnsettledStart,
} from "../../src/core/rollout/rollout-reasons.js";
import {
  finishReasonText,
  reorderReasonText,
  skipReasonText,
  stepNoteText,
  unsettledStartText,
} from "../../src/wording/reason-text.js";
import { heldReason } from "../chat/views/rollout-state-builder.js";

/** Each table names every member of its union once at least (`kinds`), so a new member needs its words here. */
function kindsOf<T extends { kind: string }>(cases: readonly (readonly [T, string])[]): string[] {
  return [...new Set(cases.map(([facts]) => facts.kind))].sort();
}

const held = heldReason("connect-3", 14, 120_000);

/** Why a rollout finished, by its facts, and the words a person reads. */
const FINISH: readonly (readonly [FinishReason, string])[] = [
  [{ kind: "all-settled" }, "every worker was restarted and the cluster settled after each step"],
  [{ kind: "nothing-to-do" }, "every worker already runs the target version; nothing to do"],
  [
    { kind: "continued-unsettled", workers: ["connect-2", "connect-4"] },
    "every worker was restarted, but connect-2, connect-4 continued without a passed settle gate (by approval)",
  ],
  [
    {
      kind: "unsettled-at-end",
      tasks: [{ task: "conn-02/0", state: "UNASSIGNED", workerId: null }],
      waitedMs: 1_800_000,
    },
    "every worker was restarted, but 1 task did not run on a live worker within 30m00s after the last step (conn-02/0 UNASSIGNED)",
  ],
  [
    {
      kind: "unsettled-at-end",
      tasks: Array.from({ length: 7 }, (_, i) => ({
        task: `orders/${i}`,
        state: "RUNNING",
        workerId: "worker-1",
      })),
      waitedMs: 90_000,
    },
    "every worker was restarted, but 7 tasks did not run on a live worker within 1m30s after the last step (orders/0 RUNNING@worker-1, orders/1 RUNNING@worker-1, orders/2 RUNNING@worker-1, orders/3 RUNNING@worker-1, orders/4 RUNNING@worker-1 and 2 more)",
  ],
  [
    { kind: "connectors-unreadable", cluster: "prod", error: "timeout" },
    "cannot read the connectors of prod: timeout; nothing was restarted",
  ],
  [
    { kind: "connectors-unreadable", cluster: "prod", error: null },
    "cannot read the connectors of prod: no worker answered; nothing was restarted",
  ],
  [
    {
      kind: "unsettled-at-start",
      unsettled: { kind: "rebalancing", workers: ["connect-1"] },
      waitedMs: 90_000,
    },
    "the cluster did not settle before the start (rebalancing: connect-1) within 1m30s; nothing was restarted. Start again once it has settled",
  ],
  [{ kind: "worker-not-found", worker: "connect-9", cluster: "prod" }, "connect-9 is not a worker of prod"],
  [{ kind: "aborted", by: "U2" }, "aborted by U2"],
  [{ kind: "aborted-before-step", by: "U2", step: 3 }, "aborted by U2 before step 3"],
  [
    { kind: "aborted-while-settling", by: "U2", worker: "connect-3", gate: [held] },
    "aborted by U2 while connect-3 was settling (it is back; the gate had not passed: 14 tasks of connect-3 held by the scheduled delay: 2m00s left)",
  ],
  [
    { kind: "aborted-while-settling", by: "U2", worker: null, gate: [] },
    "aborted by U2 while a worker was settling (it is back; the gate had not passed: no reason recorded)",
  ],
  [
    { kind: "aborted-at-prompt", by: "U2", approval: "eager-window" },
    "aborted by U2 at the eager-window prompt",
  ],
];

const item = (task: number) => ({ connector: "orders", task, state: "UNASSIGNED" });

const UNSETTLED: readonly (readonly [UnsettledStart, string])[] = [
  [
    { kind: "no-connectors-unconfirmed" },
    "the cluster shows no connectors, and its workers' metrics do not confirm it is empty",
  ],
  [
    { kind: "not-started", items: [{ connector: "audit", task: null, state: "RESTARTING" }, item(0)] },
    "not started yet: audit RESTARTING, orders/0 UNASSIGNED",
  ],
  [
    { kind: "not-started", items: [0, 1, 2, 3, 4, 5, 6].map(item) },
    "not started yet: orders/0 UNASSIGNED, orders/1 UNASSIGNED, orders/2 UNASSIGNED, orders/3 UNASSIGNED, orders/4 UNASSIGNED and 2 more",
  ],
  [{ kind: "rebalancing", workers: ["connect-1", "connect-2"] }, "rebalancing: connect-1, connect-2"],
];

const SKIP: readonly (readonly [SkipReason, string])[] = [
  [{ kind: "on-target", version: "3.7.1" }, "already runs 3.7.1"],
  [
    { kind: "restarted-since-start", startedAt: Date.UTC(2024, 4, 1, 14, 3, 0) },
    "already restarted since the rollout began (process started 2024-05-01T14:03:00.000Z)",
  ],
  [
    { kind: "restarted-since-start", startedAt: Date.UTC(2024, 4, 1, 14, 3, 0), afterRecordLost: true },
    "already restarted since the rollout began (process started 2024-05-01T14:03:00.000Z), found after its record was lost and written back: by this rollout while its record was lost, a crash, or someone else",
  ],
  [
    { kind: "on-target", version: "3.7.1", afterRecordLost: true },
    "already runs 3.7.1, found after its record was lost and written back: by this rollout while its record was lost, a crash, or someone else",
  ],
];

const REORDER: readonly (readonly [ReorderReason, string])[] = [
  [{ kind: "leader-now" }, "it is the group leader now; the leader is restarted last"],
  [
    { kind: "leader-first" },
    "it is the group leader now; pace rotate restarts the leader next, and a new leader hands its tasks out at once",
  ],
];

const NOTES: readonly (readonly [StepNote, string])[] = [
  ...SKIP,
  [{ kind: "continued", by: "U2" }, "continued by U2 without a passed gate"],
  [
    { kind: "restart-failed", error: "webhook answered 500: internal error" },
    "webhook answered 500: internal error",
  ],
  [
    { kind: "crossed-in-window" },
    "rejoined inside the scheduled-delay window; the settle gate runs once the window's last worker is back",
  ],
  [
    { kind: "window-cut-short", remaining: 2 },
    "the next worker would not be back before the window's deadline: the window ends here and 2 remaining workers are grouped again",
  ],
];

describe("reason text: facts → the words people read", () => {
  it.each(FINISH)("finish reason %j", (facts, text) => expect(finishReasonText(facts)).toBe(text));
  it.each(UNSETTLED)("unsettled start %j", (facts, text) => expect(unsettledStartText(facts)).toBe(text));
  it.each(SKIP)("skip reason %j", (facts, text) => expect(skipReasonText(facts)).toBe(text));
  it.each(REORDER)("reorder reason %j", (facts, text) => expect(reorderReasonText(facts)).toBe(text));
  it.each(NOTES)("step note %j", (facts, text) => expect(stepNoteText(facts)).toBe(text));

  it("every member of every union has its words in a table", () => {
    expect(kindsOf(FINISH)).toEqual(
      [
        "all-settled",
        "nothing-to-do",
        "continued-unsettled",
        "unsettled-at-end",
        "connectors-unreadable",
        "unsettled-at-start",
        "worker-not-found",
        "aborted",
        "aborted-before-step",
        "aborted-while-settling",
        "aborted-at-prompt",
      ].sort(),
    );
    expect(kindsOf(UNSETTLED)).toEqual(["no-connectors-unconfirmed", "not-started", "rebalancing"]);
    expect(kindsOf(SKIP)).toEqual(["on-target", "restarted-since-start"]);
    expect(kindsOf(REORDER)).toEqual(["leader-first", "leader-now"]);
    expect(kindsOf(NOTES)).toEqual(
      [
        "on-target",
        "restarted-since-start",
        "continued",
        "restart-failed",
        "crossed-in-window",
        "window-cut-short",
      ].sort(),
    );
  });
});
