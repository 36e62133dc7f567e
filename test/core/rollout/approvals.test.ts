import { describe, expect, it } from "vitest";
import type { Decision } from "../../../src/core/rollout/approval-types.js";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { startDriver, worded } from "./rollout-driver.js";
import { cluster, down } from "./rollout-fixtures.js";
import { rollFollower } from "./rollout-scripts.js";

describe("decide: blocking findings before any restart", () => {
  const cases: {
    name: string;
    start: () => ClusterSnapshotBuilder;
    detail: string;
    /** How the prompt counts the plan's blocking findings. */
    blocking: string;
    /** A worker whose version is unknown is assumed eager-only: its window needs its own approval. */
    alsoEager: boolean;
  }[] = [
    {
      name: "a task FAILED before the start",
      start: () => cluster().withConnector("orders", (c) => c.task(1, "FAILED", "worker-2")),
      detail: "1 FAILED before the start (task orders/1): the rollout needs approval, or fix them first.",
      blocking: "1 blocking problem",
      alsoEager: false,
    },
    {
      name: "an unreachable worker",
      start: () => cluster().withWorker("worker-2", (w) => w.unreachable("connection refused")),
      detail: "worker-2 (http://worker-2:8083) is unreachable: connection refused.",
      blocking: "1 blocking problem",
      alsoEager: true,
    },
  ];

  it.each(cases)("$name: asks before step 1, approve proceeds", ({ start, detail, blocking, alsoEager }) => {
    const d = startDriver().read(0, start());
    expect(d.pending()).toMatchObject({
      id: "job-1:a1",
      kind: "blocking-findings",
      step: null,
      options: ["approve", "abort"],
      askedAt: 0,
    });
    expect(d.pendingWorded()?.details).toContain(detail);
    expect(d.pending()?.facts).toMatchObject({ kind: "blocking-findings", cluster: "prod" });
    expect(d.pendingWorded()?.prompt).toBe(`The preflight found ${blocking} on prod. Start anyway?`);
    expect(d.restarts).toEqual([]);
    d.answer(5_000, "approve").read(5_000, start());
    if (alsoEager) d.answer(6_000, "approve").read(6_000, start());
    expect(d.lines).toEqual([
      "read → rollout-planned, data-flow-unseen, approval-requested | await-approval(blocking-findings)",
      "approve → approval-decided | read-cluster(0)",
      ...(alsoEager
        ? [
            "read → approval-requested | await-approval(eager-window)",
            "approve → approval-decided | read-cluster(0)",
          ]
        : []),
      "read → step-started | restart-worker(worker-1)",
    ]);
    expect(d.state.approvals[0]).toEqual({
      id: "job-1:a1",
      kind: "blocking-findings",
      step: null,
      decision: "approve",
      by: "alice",
      at: 5_000,
    });
  });

  it.each(cases)("$name: abort finishes aborted and no restart is ever issued", ({ start }) => {
    const d = startDriver().read(0, start()).answer(5_000, "abort", undefined, "carol");
    expect(d.lines.at(-1)).toBe("abort → approval-decided, rollout-finished | finish(aborted)");
    expect(d.eventsOf("rollout-finished")[0]?.reason).toEqual({
      kind: "aborted-at-prompt",
      by: "carol",
      approval: "blocking-findings",
    });
    d.read(10_000, start()).accepted(11_000, 1);
    expect(d.restarts).toEqual([]);
    expect(d.action).toEqual({ kind: "finish", result: "aborted" });
  });
});

describe("decide: eager window (worker-2 on 2.2.0 keeps the group eager until it is upgraded)", () => {
  const withOldWorker2 =
    (...upgraded: string[]) =>
    () =>
      cluster(...upgraded).withWorker("worker-2", (w) =>
        upgraded.includes("worker-2") ? w : w.version("2.2.0"),
      );

  it("asks once when the window opens (step 1), crosses the window without a gate in between, and asks nothing after it", () => {
    const d = startDriver().read(0, withOldWorker2()());
    expect(d.state.plan?.eagerWindows).toEqual([{ fromStep: 1, toStep: 2 }]);
    expect(d.pending()).toMatchObject({ kind: "eager-window", step: 1, options: ["approve", "abort"] });
    d.answer(1_000, "approve");
    d.read(1_000, withOldWorker2()())
      .accepted(2_000)
      .read(10_000, down(withOldWorker2()(), "worker-1"))
      .read(20_000, withOldWorker2("worker-1")());
    // worker-1 is back on the target inside the eager window: the next worker follows at once (one gate at the end).
    expect(d.action).toMatchObject({ kind: "read-cluster", afterMs: 0 });
    expect(d.state.steps[0]).toMatchObject({ status: "settled" });
    const t2 = rollFollower(d, "worker-2", 20_000, withOldWorker2("worker-1"));
    d.read(t2, withOldWorker2("worker-1", "worker-2")());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2", "worker-3"]);
    expect(d.approvalsAsked().map((a) => [a.kind, a.step])).toEqual([["eager-window", 1]]);
    expect(d.state.granted).toEqual([{ kind: "eager-window", step: 1 }]);
  });

  it("abort at the eager prompt restarts nothing", () => {
    const d = startDriver().read(0, withOldWorker2()()).answer(1_000, "abort");
    expect(d.state.phase).toMatchObject({ kind: "finished", result: "aborted" });
    expect(d.restarts).toEqual([]);
  });
});

describe("decide: config freeze between steps", () => {
  const changes: {
    name: string;
    change: (b: ClusterSnapshotBuilder) => ClusterSnapshotBuilder;
    line: string;
  }[] = [
    {
      name: "task count",
      change: (b) => b.withConnector("orders", (c) => c.taskCount(8)),
      line: "connector orders: task count 6 → 8",
    },
    {
      name: "config hash",
      change: (b) => b.withConnector("clicks", (c) => c.configHash("edited")),
      line: "connector clicks: configuration changed",
    },
    {
      name: "a new connector",
      change: (b) => b.withConnector("audit", (c) => c.tasks(1, "RUNNING", "worker-3")),
      line: "connector audit was created",
    },
  ];

  /** Step 1 settles, then the before-step read of step 2 sees the change. */
  const changedAtStep2 = (change: (b: ClusterSnapshotBuilder) => ClusterSnapshotBuilder) => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    d.read(t1, change(cluster("worker-1")));
    return { d, t1 };
  };

  it.each(changes)("$name: asks config-changed before step 2", ({ change, line }) => {
    const { d } = changedAtStep2(change);
    expect(d.pending()).toMatchObject({ kind: "config-changed", step: 2, options: ["continue", "abort"] });
    expect(d.pendingWorded()?.details).toEqual([line]);
    expect(d.pendingWorded()?.prompt).toBe(
      "Connector configuration changed during the rollout of prod. Continue with the new configuration?",
    );
    expect(d.restarts).toHaveLength(1);
  });

  it.each(changes)("$name: continue updates the freeze and the rollout proceeds", ({ change }) => {
    const { d, t1 } = changedAtStep2(change);
    d.answer(t1 + 1_000, "continue").read(t1 + 1_000, change(cluster("worker-1")));
    expect(d.lines.slice(-2)).toEqual([
      "continue → approval-decided | read-cluster(0)",
      "read → step-started | restart-worker(worker-2)",
    ]);
    const now = change(cluster("worker-1")).build().connectors ?? [];
    expect(d.state.freeze).toEqual(
      Object.fromEntries(now.map((c) => [c.name, { configHash: c.configHash, taskCount: c.taskCount }])),
    );
  });

  it.each(changes)("$name: abort finishes aborted after step 1 only", ({ change }) => {
    const { d, t1 } = changedAtStep2(change);
    d.answer(t1 + 1_000, "abort");
    expect(d.state.phase).toMatchObject({ kind: "finished", result: "aborted" });
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });
});

describe("decide: a config-changed approval covers the change it was asked about only", () => {
  it("a second change at the same step (after a failed restart) is asked about again", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    const taskCount = () => cluster("worker-1").withConnector("orders", (c) => c.taskCount(8));
    const alsoHash = () => taskCount().withConnector("clicks", (c) => c.configHash("edited"));
    d.read(t1, taskCount())
      .answer(t1 + 1_000, "continue")
      .read(t1 + 1_000, taskCount())
      .failed(t1 + 2_000, false)
      .answer(t1 + 3_000, "approve")
      .read(t1 + 3_000, alsoHash());
    expect(d.approvalsAsked().map((a) => [a.kind, a.step, worded(a).details])).toEqual([
      ["config-changed", 2, ["connector orders: task count 6 → 8"]],
      ["restart-failed", 2, ["executor said no"]],
      ["config-changed", 2, ["connector clicks: configuration changed"]],
    ]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
  });
});

describe("decide: decisions that do not fit the pending approval are ignored", () => {
  const failedTask = () => cluster().withConnector("orders", (c) => c.task(1, "FAILED", "worker-2"));
  const cases: { name: string; id: string | null; decision: Decision }[] = [
    { name: "another approval id", id: "job-1:a9", decision: "approve" },
    { name: "an option not offered", id: null, decision: "keep-waiting" },
    { name: "continue where only approve/abort are offered", id: null, decision: "continue" },
  ];

  it.each(cases)("$name", ({ id, decision }) => {
    const d = startDriver().read(0, failedTask());
    const asked = d.pending();
    const phase = d.state.phase;
    d.answer(1_000, decision, id ?? asked?.id);
    expect(d.lines.at(-1)).toBe(`${decision} → - | await-approval(blocking-findings)`);
    expect(d.state.phase).toEqual(phase);
    expect(d.state.approvals).toEqual([]);
    // the real answer still works afterwards
    d.answer(2_000, "approve").read(2_000, failedTask());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });

  it("a decision while nothing is pending changes nothing (and never repeats the restart)", () => {
    const d = startDriver().read(0, cluster()).answer(500, "abort", "job-1:a1");
    expect(d.lines.at(-1)).toBe("abort → - | read-cluster(0)");
    expect(d.state.phase.kind).toBe("restarting");
    expect(d.restarts).toHaveLength(1);
  });
});
