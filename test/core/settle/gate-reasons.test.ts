import { describe, expect, it } from "vitest";
import { captureBaseline } from "../../../src/core/settle/capture-baseline.js";
import { evaluateSettle } from "../../../src/core/settle/evaluate-settle.js";
import type { GatePolicy, GateReason } from "../../../src/core/settle/settle-types.js";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { aCluster } from "../../support/cluster-snapshot-builder.js";
import { baselineFor, cluster, DEADLINE, DELAY_MS, pollsAt, STOP_AT } from "./settle-fixtures.js";

const NOW = DEADLINE + 60_000;
const TIMES = [NOW - 10_000, NOW - 5_000, NOW];

interface Row {
  readonly code: GateReason["code"];
  readonly kind: "waiting" | "failed";
  readonly state: (b: ClusterSnapshotBuilder) => ClusterSnapshotBuilder;
  readonly now?: number;
  readonly times?: readonly number[];
  readonly policy?: GatePolicy;
  readonly message?: string;
}

const rows: readonly Row[] = [
  { code: "worker-down", kind: "waiting", state: (b) => b.withWorker("worker-3", (w) => w.unreachable()) },
  {
    code: "worker-starting",
    kind: "waiting",
    state: (b) => b.withWorker("worker-3", (w) => w.health("starting")),
  },
  {
    code: "worker-version-mismatch",
    kind: "waiting",
    state: (b) => b.withWorker("worker-3", (w) => w.version("3.6.1")),
    message: "worker-3 reports version 3.6.1, expected 3.7.1",
  },
  {
    code: "worker-idle",
    kind: "waiting",
    state: (b) =>
      b
        .withEachConnector((c) => c.moveTasks("worker-3", "worker-2"))
        .withEachConnector((c) => c.on("worker-1")),
  },
  {
    code: "worker-unreachable",
    kind: "waiting",
    state: (b) => b.withWorker("worker-2", (w) => w.unreachable()),
  },
  { code: "connectors-unreadable", kind: "waiting", state: (b) => b.connectorsUnreadable("timeout") },
  { code: "connector-missing", kind: "waiting", state: (b) => b.withoutConnector("clicks") },
  {
    code: "connector-added",
    kind: "waiting",
    state: (b) => b.withConnector("fresh", (c) => c.tasks(1, "UNASSIGNED", "worker-1")),
  },
  {
    code: "task-count-changed",
    kind: "waiting",
    state: (b) => b.withConnector("orders", (c) => c.taskCount(7)),
  },
  { code: "task-missing", kind: "waiting", state: (b) => b.withConnector("orders", (c) => c.withoutTask(0)) },
  {
    code: "tasks-not-running",
    kind: "waiting",
    state: (b) => b.withConnector("orders", (c) => c.task(0, "UNASSIGNED", "worker-1")),
  },
  {
    code: "stale-running",
    kind: "waiting",
    state: (b) => b.withWorker("worker-2", (w) => w.assignedTasks(0)),
  },
  {
    code: "task-on-unknown-worker",
    kind: "waiting",
    state: (b) => b.withConnector("orders", (c) => c.task(0, "RUNNING", "ghost:8083")),
  },
  { code: "epoch-mismatch", kind: "waiting", state: (b) => b.withWorker("worker-2", (w) => w.epoch(11)) },
  {
    code: "leader-mismatch",
    kind: "waiting",
    state: (b) => b.withWorker("worker-2", (w) => w.leaderUrl("http://worker-2:8083/")),
  },
  {
    code: "leader-not-live",
    kind: "waiting",
    state: (b) => b.withWorkers(3, (w) => w.leaderUrl("http://gone:8083/")),
  },
  { code: "rebalancing", kind: "waiting", state: (b) => b.withWorker("worker-1", (w) => w.rebalancing()) },
  {
    code: "rebalance-recent",
    kind: "waiting",
    state: (b) => b.withWorkers(3, (w) => w.lastRebalanceAgo(2_000)),
  },
  {
    code: "assignment-incomplete",
    kind: "waiting",
    state: (b) => b.withWorker("worker-1", (w) => w.assignedTasks(1)),
  },
  {
    code: "assignment-excess",
    kind: "waiting",
    state: (b) => b.withWorker("worker-1", (w) => w.assignedTasks(5)),
  },
  { code: "assignment-unstable", kind: "waiting", state: (b) => b, times: [NOW] },
  {
    code: "eos-leader-unreachable",
    kind: "waiting",
    state: (b) =>
      b
        .withConnector("orders", (c) => c.exactlyOnceRequired())
        .withWorker("worker-1", (w) => w.unreachable()),
  },
  {
    code: "gate-slow",
    kind: "waiting",
    state: (b) => b.withWorker("worker-3", (w) => w.version("3.6.1")),
    now: DEADLINE + 150_000,
    times: [DEADLINE + 150_000],
    policy: { expectedSettleMs: 120_000 },
  },
  {
    code: "gate-timeout",
    kind: "failed",
    state: (b) => b.withWorker("worker-3", (w) => w.version("3.6.1")),
    now: DEADLINE + 2_000_000,
    times: [DEADLINE + 2_000_000],
  },
  {
    code: "task-failed",
    kind: "failed",
    state: (b) =>
      b.withConnector("orders", (c) =>
        c.task(
          2,
          "FAILED",
          "worker-3",
          "org.apache.kafka.connect.errors.ConnectException: boom\n\tat x.y(Z.java:1)",
        ),
      ),
    message: "orders/2 FAILED: org.apache.kafka.connect.errors.ConnectException: boom",
  },
  {
    code: "connector-failed",
    kind: "failed",
    state: (b) => b.withConnector("clicks", (c) => c.state("FAILED")),
  },
];

describe("evaluateSettle reasons", () => {
  const baseline = baselineFor("worker-3");

  it("passes on the healthy state (the rows' reference)", () => {
    expect(evaluateSettle({ baseline, polls: pollsAt(TIMES, cluster), policy: {}, now: NOW })).toEqual({
      kind: "settled",
    });
  });

  it.each(rows)("$code → $kind", (row) => {
    const now = row.now ?? NOW;
    const polls = pollsAt(row.times ?? TIMES, () => row.state(cluster()));
    const verdict = evaluateSettle({ baseline, polls, policy: row.policy ?? {}, now });
    expect(verdict.kind).toBe(row.kind);
    const reasons = verdict.kind === "settled" ? [] : verdict.reasons;
    const found = reasons.find((r) => r.code === row.code);
    expect(found, JSON.stringify(reasons, null, 2)).toBeDefined();
    expect(found?.message.length).toBeGreaterThan(5);
    if (row.message) expect(found?.message).toBe(row.message);
  });

  it("no-polls → waiting", () => {
    expect(evaluateSettle({ baseline, polls: [], policy: {}, now: NOW })).toEqual({
      kind: "waiting",
      reasons: [{ code: "no-polls", message: "no poll of the cluster yet" }],
    });
  });

  it.each([
    [true, "settled"],
    [false, "waiting"],
  ])("a task PAUSED after the step with allowPaused=%s → %s", (allowPaused, kind) => {
    const polls = pollsAt(TIMES, () =>
      cluster().withConnector("orders", (c) => c.task(1, "PAUSED", "worker-2")),
    );
    expect(evaluateSettle({ baseline, polls, policy: { allowPaused }, now: NOW }).kind).toBe(kind);
  });

  it("a FAILED task already FAILED in the baseline does not fail the gate", () => {
    const before = cluster("3.6.1").withConnector("orders", (c) => c.task(0, "FAILED", "worker-1", "old"));
    const capture = captureBaseline(before.at(0).build(), {
      step: 1,
      worker: "worker-3",
      targetVersion: "3.7.1",
      stopIssuedAt: 1,
      delayMs: 300_000,
    });
    if (capture.kind !== "captured") throw new Error("no baseline");
    const polls = pollsAt(TIMES, () =>
      cluster().withConnector("orders", (c) => c.task(0, "FAILED", "worker-1", "old")),
    );
    expect(evaluateSettle({ baseline: capture.baseline, polls, policy: {}, now: NOW }).kind).toBe("settled");
  });
});

describe("captureBaseline", () => {
  it("rejects an unknown worker as a value", () => {
    const result = captureBaseline(cluster().build(), {
      step: 1,
      worker: "nope",
      targetVersion: "3.7",
      stopIssuedAt: 0,
      delayMs: 1,
    });
    expect(result.kind).toBe("worker-not-found");
  });

  it.each([
    [{ openWindowDeadline: 200_000 }, 200_000],
    [{ openWindowDeadline: 5_000 }, 310_000],
    [{ delayMs: 0 }, null],
  ])("deadline with %o → %s", (extra, deadline) => {
    const result = captureBaseline(cluster().build(), {
      step: 2,
      worker: "worker-2",
      targetVersion: "3.7.1",
      stopIssuedAt: 10_000,
      delayMs: 300_000,
      ...extra,
    });
    expect(result.kind === "captured" ? result.baseline.delayDeadline : "x").toBe(deadline);
  });

  it("records the worker's tasks and that it held work", () => {
    const b = baselineFor("worker-2");
    expect(b).toMatchObject({
      heldWork: true,
      isLeader: false,
      worker: { name: "worker-2", workerId: "worker-2:8083" },
    });
    expect(b.workerTasks).toEqual(["orders/1", "orders/4", "clicks/1"]);
  });
});

describe("a restarted worker left without work", () => {
  const small = () =>
    aCluster("small")
      .withWorkers(2, (w) => w.version("3.7.1").lastRebalanceAgo(60_000))
      .leader("worker-1")
      .withConnector("only", (c) => c.on("worker-2").tasks(1, "RUNNING", ["worker-2"]));

  it("is not waited for when every connector and task runs elsewhere within its even share (fewer tasks than workers)", () => {
    const capture = captureBaseline(
      small()
        .at(STOP_AT - 1_000)
        .build(),
      {
        step: 1,
        worker: "worker-2",
        targetVersion: "3.7.1",
        stopIssuedAt: STOP_AT,
        delayMs: DELAY_MS,
        isLeader: true,
      },
    );
    if (capture.kind !== "captured") throw new Error(capture.message);
    // The bounce moved its connector and task to worker-1; back, worker-2 gets nothing: 1 of each over 2 workers is
    // balanced, so the assignor never revokes anything for it.
    const after = () =>
      small()
        .withConnector("only", (c) => c.on("worker-1").moveTasks("worker-2", "worker-1"))
        .withWorker("worker-2", (w) => w.assignedTasks(0));
    const verdict = evaluateSettle({
      baseline: capture.baseline,
      polls: pollsAt(TIMES, after),
      policy: {},
      now: NOW,
    });
    const reasons = verdict.kind === "settled" ? [] : verdict.reasons;
    expect(reasons.map((r) => r.code)).not.toContain("worker-idle");
  });
});
