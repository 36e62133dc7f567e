import { describe, expect, it } from "vitest";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { startDriver } from "./rollout-driver.js";
import { backHeld, cluster, down } from "./rollout-fixtures.js";
import { readEvery } from "./rollout-scripts.js";

describe("decide: the executor reports a failed restart", () => {
  it.each([
    {
      mayHaveRun: false,
      prompt: "Restarting worker-1 failed. Retry the restart?",
      details: ["executor said no"],
    },
    {
      mayHaveRun: true,
      prompt: "Restarting worker-1 failed (it may have run partly). Retry the restart?",
      details: ["executor said no", "Check the worker before retrying: the executor may have acted."],
    },
  ])(
    "mayHaveRun $mayHaveRun: asks restart-failed; approve restarts again as attempt 2",
    ({ mayHaveRun, prompt, details }) => {
      const d = startDriver().read(0, cluster()).failed(1_000, mayHaveRun);
      expect(d.lines.at(-1)).toBe("restart-failed → approval-requested | await-approval(restart-failed)");
      expect(d.pendingWorded()).toMatchObject({ kind: "restart-failed", step: 1, prompt, details });
      expect(d.pending()?.facts).toEqual({
        kind: "restart-failed",
        worker: "worker-1",
        error: "executor said no",
        mayHaveRun,
      });
      expect(d.state.steps[0]).toMatchObject({
        status: "failed",
        note: { kind: "restart-failed", error: "executor said no" },
        attempts: 1,
      });
      d.answer(2_000, "approve").read(2_000, cluster());
      expect(d.restarts).toEqual([
        { kind: "restart-worker", step: 1, stepId: "job-1:1:1", worker: "worker-1" },
        { kind: "restart-worker", step: 1, stepId: "job-1:1:2", worker: "worker-1" },
      ]);
      expect(d.state.steps[0]).toMatchObject({ status: "restart-issued", attempts: 2, note: null });
    },
  );

  it("approve after a failure that did restart the worker: gated against the baseline from before it, not skipped", () => {
    // worker-1 came back on the target although the executor timed out: its tasks are still held by the delay.
    const d = startDriver().read(0, cluster()).failed(1_000, true).answer(2_000, "approve");
    d.read(20_000, backHeld(cluster(), "worker-1"));
    expect(d.restarts).toHaveLength(1);
    expect(d.eventsOf("step-skipped")).toEqual([]);
    expect(d.state.phase.kind).toBe("settling");
    expect(d.lastEvents.map((e) => e.kind)).toEqual(["worker-back", "gate-waiting"]);
    d.read(60_000, cluster("worker-1")).read(70_000, cluster("worker-1"));
    expect(d.eventsOf("step-settled").map((e) => e.worker)).toEqual(["worker-1"]);
  });

  it.each([false, true])("mayHaveRun %s: abort finishes aborted without another restart", (mayHaveRun) => {
    const d = startDriver().read(0, cluster()).failed(1_000, mayHaveRun).answer(2_000, "abort");
    expect(d.state.phase).toMatchObject({ kind: "finished", result: "aborted" });
    expect(d.restarts).toHaveLength(1);
  });

  it("a result for another step, or outside a restart, is ignored", () => {
    const d = startDriver().read(0, cluster()).failed(1_000, false, 2).accepted(1_500, 2);
    expect(d.state.phase.kind).toBe("restarting");
    d.accepted(2_000).accepted(2_500).failed(3_000, true);
    expect(d.lines.slice(-2)).toEqual([
      "accepted → - | read-cluster(10000)",
      "restart-failed → - | read-cluster(10000)",
    ]);
    expect(d.state.phase.kind).toBe("waiting-back");
  });
});

describe("decide: slow gate (expectedSettleMs 60 s past the 60 s delay deadline)", () => {
  const held = () => backHeld(cluster(), "worker-1");
  /** Step 1's worker is back at 20 s but its tasks stay held past the deadline; reads every 10 s up to `to`. */
  const heldUntil = (to: number) =>
    readEvery(
      startDriver().read(0, cluster()).accepted(1_000).read(10_000, down(cluster(), "worker-1")),
      20_000,
      to,
      held,
    );

  it("asks once waiting is 60 s past the deadline, with keep-waiting / continue / abort", () => {
    const d = heldUntil(120_000);
    expect(d.approvalsAsked()).toEqual([]);
    d.read(130_000, held());
    expect(d.lines.at(-1)).toBe("read → gate-waiting, approval-requested | await-approval(slow-gate)");
    expect(d.pendingWorded()).toMatchObject({
      kind: "slow-gate",
      step: 1,
      prompt:
        "The cluster has not settled after restarting worker-1 (2m10s so far, delay included). Keep waiting?",
      options: ["keep-waiting", "continue", "abort"],
    });
    expect(d.pending()?.facts).toMatchObject({ kind: "gate-slow", worker: "worker-1", elapsedMs: 130_000 });
    expect(d.pendingWorded()?.details).toContain("settling is 10s slower than expected");
  });

  it("keep-waiting asks again only after another expectedSettleMs", () => {
    const d = heldUntil(130_000).answer(131_000, "keep-waiting");
    expect(d.state.phase).toMatchObject({ kind: "settling", askSlowAfter: 191_000, stable: null });
    readEvery(d, 140_000, 190_000, held);
    expect(d.approvalsAsked()).toHaveLength(1);
    expect(d.action).toEqual({ kind: "read-cluster", afterMs: 10_000 });
    d.read(200_000, held());
    expect(d.approvalsAsked().map((a) => [a.kind, a.askedAt])).toEqual([
      ["slow-gate", 130_000],
      ["slow-gate", 200_000],
    ]);
  });

  it("continue marks the step continued and goes on with worker-2", () => {
    const d = heldUntil(130_000).answer(131_000, "continue", undefined, "erin").read(131_000, held());
    expect(d.lines.slice(-2)).toEqual([
      "continue → approval-decided | read-cluster(0)",
      "read → step-started | restart-worker(worker-2)",
    ]);
    expect(d.state.steps[0]).toMatchObject({
      status: "continued",
      note: { kind: "continued", by: "erin" },
      settledAt: 131_000,
    });
  });
});

describe("decide: the gate fails", () => {
  const cases: {
    name: string;
    settings?: { gatePolicy: { failAfterMs: number } };
    at: number;
    poll: () => ClusterSnapshotBuilder;
    detail: string;
  }[] = [
    {
      name: "a task newly FAILED after the restart",
      at: 20_000,
      poll: () =>
        backHeld(cluster(), "worker-1").withConnector("orders", (c) =>
          c.task(1, "FAILED", "worker-2", "java.lang.OutOfMemoryError\n\tat Foo"),
        ),
      detail: "orders/1 FAILED: java.lang.OutOfMemoryError",
    },
    {
      name: "no settle 30 s past the deadline (failAfterMs 30 s)",
      settings: { gatePolicy: { failAfterMs: 30_000 } },
      at: 100_000,
      poll: () => backHeld(cluster(), "worker-1"),
      detail: "not settled 40s after the delay deadline",
    },
  ];

  it.each(cases)("$name: asks gate-failed (continue / abort)", ({ settings, at, poll, detail }) => {
    const d = startDriver(settings ? { settings } : {})
      .read(0, cluster())
      .accepted(1_000)
      .read(at, poll());
    expect(d.pending()).toMatchObject({ kind: "gate-failed", step: 1, options: ["continue", "abort"] });
    expect(d.pendingWorded()?.details[0]).toBe(detail);
    expect(d.pending()?.facts).toMatchObject({ kind: "gate-failed", worker: "worker-1" });
    expect(d.state.steps[0]?.gate[0]?.message).toBe(detail);
  });

  it.each(["continue", "abort"] as const)("%s", (decision) => {
    const [failed] = cases;
    if (!failed) throw new Error("no case");
    const d = startDriver()
      .read(0, cluster())
      .accepted(1_000)
      .read(20_000, failed.poll())
      .answer(21_000, decision);
    d.read(21_000, failed.poll());
    if (decision === "continue") {
      expect(d.state.steps[0]?.status).toBe("continued");
      expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
    } else {
      expect(d.state.phase).toMatchObject({ kind: "finished", result: "aborted" });
      expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
    }
  });
});
