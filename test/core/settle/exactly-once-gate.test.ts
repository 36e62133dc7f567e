import { describe, expect, it } from "vitest";
import { captureBaseline } from "../../../src/core/settle/capture-baseline.js";
import { evaluateSettle } from "../../../src/core/settle/evaluate-settle.js";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { cluster, DEADLINE, pollsAt, STOP_AT } from "./settle-fixtures.js";

const NOW = DEADLINE + 60_000;
const TIMES = [NOW - 10_000, NOW - 5_000, NOW];

/** orders' tasks transactional: each worker exports transaction-size-avg for the tasks it runs. */
const transactional = (b: ClusterSnapshotBuilder, on3: "committed" | "none" | null, move = false) =>
  b
    .withWorker("worker-1", (w) => w.flow("orders/0", 10, { transactions: "committed" }))
    .withWorker("worker-2", (w) => w.flow("orders/1", 10, { transactions: "committed" }))
    .withWorker(move ? "worker-1" : "worker-3", (w) =>
      on3 === null ? w.flow("orders/2", 10) : w.flow("orders/2", 10, { transactions: on3 }),
    );

function baseline(eos: boolean) {
  const before = cluster("3.6.1").at(STOP_AT - 1_000);
  const capture = captureBaseline((eos ? transactional(before, "committed") : before).build(), {
    step: 1,
    worker: "worker-3",
    targetVersion: "3.7.1",
    stopIssuedAt: STOP_AT,
    delayMs: 300_000,
  });
  if (capture.kind !== "captured") throw new Error(capture.message);
  return capture.baseline;
}

const verdict = (eos: boolean, after: (b: ClusterSnapshotBuilder) => ClusterSnapshotBuilder) =>
  evaluateSettle({
    baseline: baseline(eos),
    polls: pollsAt(TIMES, () => after(cluster())),
    policy: {},
    now: NOW,
  });

describe("the gate on exactly-once source tasks", () => {
  it("waits with eos-no-commit while the restarted worker's task has committed no transaction since it started", () => {
    const v = verdict(true, (b) => transactional(b, "none"));
    expect(v.kind).toBe("waiting");
    const reasons = v.kind === "settled" ? [] : v.reasons;
    expect(reasons.map((r) => r.code)).toEqual(["eos-no-commit"]);
    expect(reasons[0]).toMatchObject({
      tasks: [{ task: "orders/2", workerId: "worker-3:8083" }],
      message:
        "1 exactly-once tasks have not committed a transaction since they started (orders/2@worker-3:8083)",
    });
  });

  it("settles once that task committed one", () => {
    expect(verdict(true, (b) => transactional(b, "committed"))).toEqual({ kind: "settled" });
  });

  it("a task transactional before the step whose new instance shows no transactions yet waits too", () => {
    expect(verdict(true, (b) => transactional(b, null)).kind).toBe("waiting");
  });

  it("a task that moved to another worker must commit there; tasks the step did not touch are not asked", () => {
    const moved = verdict(true, (b) =>
      transactional(
        b.withConnector("orders", (c) => c.task(2, "RUNNING", "worker-1")),
        "none",
        true,
      ),
    );
    expect(moved.kind === "waiting" && moved.reasons[0]).toMatchObject({
      code: "eos-no-commit",
      tasks: [{ task: "orders/2", workerId: "worker-1:8083" }],
    });
    // orders/0 on worker-1 shows none (say, a fresh metric) but the step did not restart or move it.
    const untouched = verdict(true, (b) =>
      transactional(b, "committed").withWorker("worker-1", (w) =>
        w.flow("orders/0", 10, { transactions: "none" }),
      ),
    );
    expect(untouched).toEqual({ kind: "settled" });
  });

  it("a task idle before the step (it writes nothing, so it commits nothing) is not waited for", () => {
    const idle = {
      ...baseline(true),
      flow: { flowing: [], idle: ["orders/2"], errors: {}, lag: {} },
    };
    const polls = pollsAt(TIMES, () => transactional(cluster(), null));
    expect(evaluateSettle({ baseline: idle, polls, policy: {}, now: NOW })).toEqual({ kind: "settled" });
  });

  it("at-least-once tasks (no transaction series) are not asked", () => {
    expect(verdict(false, (b) => b.withWorker("worker-3", (w) => w.flow("orders/2", 10)))).toEqual({
      kind: "settled",
    });
  });
});
