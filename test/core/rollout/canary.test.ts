import { describe, expect, it } from "vitest";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { startDriver } from "./rollout-driver.js";
import { backHeld, cluster, down, FROM, RESTART, SETTINGS, TO, UPGRADE } from "./rollout-fixtures.js";

const CANARY = {
  soakMs: 60_000,
  onRestart: false,
  minRateRatio: 0.5,
  maxNewFailures: 0,
  maxGcRatio: 3,
  minGcShare: 0.05,
  maxHeapShare: 0.9,
};
const settings = { canary: CANARY };

/** Where the fixture's tasks run: orders/0..5 and clicks/0..2 dealt round-robin over worker-1..3. */
const TASKS: Readonly<Record<string, readonly string[]>> = {
  "worker-1": ["orders/0", "orders/3", "clicks/0"],
  "worker-2": ["orders/1", "orders/4", "clicks/1"],
  "worker-3": ["orders/2", "orders/5", "clicks/2"],
};

/**
 * Every task moving 10 records a second since t = 0, those on `slow` (from `slowSince`) one a second; each task on
 * `failing` with `failures` record failures.
 */
function flowing(
  b: ClusterSnapshotBuilder,
  t: number,
  slow: string | null = null,
  slowSince = 0,
  failing: { readonly worker: string; readonly failures: number } | null = null,
) {
  for (const [worker, tasks] of Object.entries(TASKS))
    b.withWorker(worker, (w) => {
      for (const task of tasks) {
        const isSlow = worker === slow && t > slowSince;
        const records = isSlow ? (t - slowSince) / 1000 : (10 * t) / 1000;
        w.flow(task, Math.round(records), { failures: failing?.worker === worker ? failing.failures : 0 });
      }
      return w;
    });
  return b;
}

/** Planned (flow learned) at 10 s, then worker-1's step through its gate: returns the read at which it passed. */
function firstStep(d: ReturnType<typeof startDriver>, slow: boolean): number {
  const up = (t: number) => flowing(cluster("worker-1"), t, slow ? "worker-1" : null, 20_000);
  d.read(0, flowing(cluster(), 0)).read(10_000, flowing(cluster(), 10_000));
  expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  d.accepted(11_000)
    .read(
      15_000,
      flowing(down(cluster(), "worker-1"), 15_000).withWorker("worker-1", (w) => w.noMetrics()),
    )
    .read(20_000, flowing(backHeld(cluster(), "worker-1"), 20_000));
  let t = 30_000;
  for (; d.eventsOf("step-settled").length === 0 && t <= 200_000; t += 10_000) d.read(t, up(t));
  expect(d.eventsOf("step-settled").map((e) => e.worker)).toEqual(["worker-1"]);
  expect(d.eventsOf("canary-soaking")).toEqual([]);
  return t - 10_000;
}

describe("decide: the canary soak after the first upgraded worker", () => {
  it("without per-task metrics the soak waits soakMs, says it passed with nothing to compare, then goes on", () => {
    const d = startDriver({ target: UPGRADE, now: 0, settings });
    d.read(0, cluster()).accepted(1_000);
    d.read(10_000, down(cluster(), "worker-1"))
      .read(20_000, backHeld(cluster(), "worker-1"))
      .read(60_000, cluster("worker-1"))
      .read(70_000, cluster("worker-1"));
    expect(d.eventsOf("step-settled")).toHaveLength(1);
    d.read(80_000, cluster("worker-1"));
    expect(d.eventsOf("canary-soaking")).toEqual([
      { kind: "canary-soaking", step: 1, worker: "worker-1", soakMs: 60_000 },
    ]);
    d.read(120_000, cluster("worker-1"));
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
    d.read(140_000, cluster("worker-1"));
    expect(d.eventsOf("canary-passed")).toMatchObject([
      { worker: "worker-1", figures: { canaryRate: null, otherRate: null, soakMs: 60_000 } },
    ]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
  });

  it("a canary whose tasks move data like the old workers' passes with the figures", () => {
    const d = startDriver({ target: UPGRADE, now: 0, settings });
    const t = firstStep(d, false);
    const up = (at: number) => flowing(cluster("worker-1"), at);
    d.read(t + 10_000, up(t + 10_000)).read(t + 70_000, up(t + 70_000));
    const [passed] = d.eventsOf("canary-passed");
    expect(passed?.figures).toMatchObject({
      canaryTasks: 3,
      otherTasks: 6,
      canaryRate: 10,
      otherRate: 10,
      rateRatio: 1,
    });
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
  });

  it("a slow canary asks, naming the metric and both values: roll back, continue or abort", () => {
    const d = startDriver({ target: UPGRADE, now: 0, settings });
    const t = firstStep(d, true);
    const up = (at: number) => flowing(cluster("worker-1"), at, "worker-1", 20_000);
    d.read(t + 10_000, up(t + 10_000)).read(t + 70_000, up(t + 70_000));
    const asked = d.pending();
    expect(asked).toMatchObject({ kind: "canary", step: 2, options: ["rollback", "continue", "abort"] });
    expect(asked?.facts).toMatchObject({
      kind: "canary",
      worker: "worker-1",
      version: TO,
      from: FROM,
      findings: [{ metric: "record-rate", canary: 1, others: 10, ratio: 0.1, minRatio: 0.5 }],
    });
    expect(d.pendingWorded()?.prompt).toBe(
      `The canary worker-1 did worse on ${TO} than the workers still on ${FROM}: record rate 1.0/s per task vs 10.0/s on the old workers (0.10× the same connectors', below 0.50×). Roll it back to ${FROM}, continue, or abort?`,
    );
    expect(d.restarts).toHaveLength(1);
  });

  it("a canary JVM spending far more of the soak in GC, or its heap near its max, fails it with both sides' figures", () => {
    const d = startDriver({ target: UPGRADE, now: 0, settings });
    const t = firstStep(d, false);
    /** Every worker's GC seconds so far and heap used (of a 1000-byte max); worker-1 busier in GC from the soak on. */
    const withJvm = (at: number, canaryHeap: number) => {
      const b = flowing(cluster("worker-1"), at);
      for (const worker of Object.keys(TASKS)) {
        const soaked = Math.max(0, at - (t + 10_000)) / 1000;
        const gcSeconds = 1 + (worker === "worker-1" ? 0.3 * soaked : 0.02 * soaked);
        const heapUsedBytes = worker === "worker-1" ? canaryHeap : 400;
        b.withWorker(worker, (w) =>
          w.metrics({ jvm: { heapUsedBytes, heapAfterGcBytes: null, heapMaxBytes: 1000, gcSeconds } }),
        );
      }
      return b;
    };
    d.read(t + 10_000, withJvm(t + 10_000, 500)).read(t + 70_000, withJvm(t + 70_000, 950));
    const facts = d.pending()?.facts;
    expect(facts).toMatchObject({
      kind: "canary",
      findings: [
        { metric: "gc-time", maxRatio: 3 },
        { metric: "heap", canary: 0.95, others: 0.4, maxShare: 0.9 },
      ],
      figures: { canaryHeapShare: 0.95, otherHeapShare: 0.4 },
    });
    const gc = facts?.kind === "canary" ? facts.findings[0] : undefined;
    expect(gc?.metric === "gc-time" ? [gc.canary, gc.others] : []).toEqual([
      expect.closeTo(0.3, 5),
      expect.closeTo(0.02, 5),
    ]);
    expect(d.pendingWorded()?.prompt).toContain(
      "the workers still on 3.6.1: time in GC 30 % of the soak vs 2.0 % on the old workers (above 3× theirs).",
    );
  });

  it("a canary whose GC share stays small passes however it compares (below canary.minGcShare)", () => {
    const d = startDriver({ target: UPGRADE, now: 0, settings });
    const t = firstStep(d, false);
    const withJvm = (at: number) => {
      const b = flowing(cluster("worker-1"), at);
      const soaked = Math.max(0, at - (t + 10_000)) / 1000;
      for (const worker of Object.keys(TASKS))
        b.withWorker(worker, (w) =>
          w.metrics({
            jvm: {
              heapUsedBytes: 300,
              heapAfterGcBytes: null,
              heapMaxBytes: 1000,
              gcSeconds: soaked * (worker === "worker-1" ? 0.01 : 0.001),
            },
          }),
        );
      return b;
    };
    d.read(t + 10_000, withJvm(t + 10_000)).read(t + 70_000, withJvm(t + 70_000));
    const [passed] = d.eventsOf("canary-passed");
    expect(passed?.figures.canaryGcShare).toBeCloseTo(0.01, 5);
    expect(passed?.figures.otherGcShare).toBeCloseTo(0.001, 5);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
  });

  it("roll back: the canary alone is returned to the version it left through its own gate, the rollout ends failed", () => {
    const d = startDriver({ target: UPGRADE, now: 0, settings });
    const t = firstStep(d, true);
    const up = (at: number) => flowing(cluster("worker-1"), at, "worker-1", 20_000);
    d.read(t + 10_000, up(t + 10_000)).read(t + 70_000, up(t + 70_000));
    d.answer(t + 71_000, "rollback").read(t + 71_000, up(t + 71_000));
    expect(d.restarts.map((r) => [r.worker, r.step])).toEqual([
      ["worker-1", 1],
      ["worker-1", 4],
    ]);
    expect(d.state.steps.map((s) => [s.worker, s.status, s.toVersion])).toEqual([
      ["worker-1", "settled", undefined],
      ["worker-2", "skipped", undefined],
      ["worker-3", "skipped", undefined],
      ["worker-1", "restart-issued", FROM],
    ]);
    const old = (at: number) => flowing(cluster(), at);
    d.accepted(t + 72_000)
      .read(
        t + 80_000,
        flowing(down(cluster(), "worker-1"), t + 80_000).withWorker("worker-1", (w) => w.noMetrics()),
      )
      .read(
        t + 90_000,
        flowing(
          backHeld(cluster(), "worker-1").withWorker("worker-1", (w) => w.version(FROM)),
          t + 90_000,
        ),
      );
    for (let at = t + 100_000; at <= t + 180_000; at += 10_000) d.read(at, old(at));
    expect(d.eventsOf("rollout-finished")).toMatchObject([
      {
        result: "failed",
        reason: {
          kind: "canary-rolled-back",
          worker: "worker-1",
          from: FROM,
          notRestarted: ["worker-2", "worker-3"],
          findings: [{ metric: "record-rate" }],
        },
      },
    ]);
    expect(d.restarts).toHaveLength(2);
  });

  it("continue goes on with the next worker; abort stops with the canary on the target", () => {
    const go = startDriver({ target: UPGRADE, now: 0, settings });
    const t = firstStep(go, true);
    const up = (at: number) => flowing(cluster("worker-1"), at, "worker-1", 20_000);
    go.read(t + 10_000, up(t + 10_000)).read(t + 70_000, up(t + 70_000));
    go.answer(t + 71_000, "continue").read(t + 71_000, up(t + 71_000));
    expect(go.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);

    const stop = startDriver({ target: UPGRADE, now: 0, settings });
    const ts = firstStep(stop, true);
    stop.read(ts + 10_000, up(ts + 10_000)).read(ts + 70_000, up(ts + 70_000));
    stop.answer(ts + 71_000, "abort");
    expect(stop.eventsOf("rollout-finished")).toMatchObject([{ result: "aborted" }]);
    expect(stop.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });

  it("new record failures on the canary's tasks fail it; a canary task FAILED fails it before the soak ends", () => {
    const d = startDriver({ target: UPGRADE, now: 0, settings });
    const t = firstStep(d, false);
    const failing = (at: number) =>
      flowing(cluster("worker-1"), at, null, 0, { worker: "worker-1", failures: at > t + 10_000 ? 3 : 0 });
    d.read(t + 10_000, flowing(cluster("worker-1"), t + 10_000)).read(t + 70_000, failing(t + 70_000));
    expect(d.pending()?.facts).toMatchObject({
      findings: [{ metric: "record-failures", canary: 9, others: 0, canaryTasks: 3, otherTasks: 6 }],
    });

    const e = startDriver({ target: UPGRADE, now: 0, settings });
    const te = firstStep(e, false);
    e.read(te + 10_000, flowing(cluster("worker-1"), te + 10_000));
    e.read(
      te + 20_000,
      flowing(cluster("worker-1"), te + 20_000).withConnector("orders", (c) =>
        c.task(0, "FAILED", "worker-1"),
      ),
    );
    expect(e.pending()?.facts).toMatchObject({ findings: [{ metric: "task-failed", tasks: ["orders/0"] }] });
  });

  it("a canary that lost its tasks, or is down at the soak's end, fails it; a task FAILED before the soak does not", () => {
    const d = startDriver({ target: UPGRADE, now: 0, settings });
    const t = firstStep(d, false);
    const up = (at: number) => flowing(cluster("worker-1"), at);
    const failedBefore = (at: number) =>
      up(at).withConnector("clicks", (c) => c.task(1, "FAILED", "worker-1"));
    d.read(t + 10_000, failedBefore(t + 10_000));
    d.read(t + 20_000, failedBefore(t + 20_000));
    expect(d.pending()).toBeUndefined();
    // worker-1's orders tasks ran on worker-2 by the end (worker-1 crashed and came back holding less).
    const moved = (at: number) =>
      failedBefore(at)
        .withConnector("orders", (c) => c.task(0, "RUNNING", "worker-2").task(3, "RUNNING", "worker-2"))
        .withWorker("worker-1", (w) => w.withoutFlow("orders/0").withoutFlow("orders/3"))
        .withWorker("worker-2", (w) => w.flow("orders/0", 1).flow("orders/3", 1));
    d.read(t + 70_000, moved(t + 70_000));
    expect(d.pending()?.facts).toMatchObject({
      findings: [{ metric: "tasks-lost", tasks: ["orders/0", "orders/3"] }],
    });

    const e = startDriver({ target: UPGRADE, now: 0, settings });
    const te = firstStep(e, false);
    e.read(te + 10_000, up(te + 10_000));
    e.read(
      te + 70_000,
      up(te + 70_000).withWorker("worker-1", (w) => w.unreachable()),
    );
    expect(e.pending()?.facts).toMatchObject({ findings: [{ metric: "canary-down" }] });
  });

  it("does not soak a plain restart (unless canary.onRestart), a rollback, or with soakMs 0", () => {
    for (const [target, canary] of [
      [RESTART, CANARY],
      [UPGRADE, { ...CANARY, soakMs: 0 }],
    ] as const) {
      const d = startDriver({ target, now: 0, settings: { canary } });
      d.read(0, cluster()).accepted(1_000);
      const after = target.kind === "upgrade" ? cluster("worker-1") : cluster();
      d.read(10_000, down(cluster(), "worker-1"))
        .read(
          20_000,
          target.kind === "upgrade"
            ? backHeld(cluster(), "worker-1")
            : cluster()
                .withWorker("worker-1", (w) => w.metrics({ startTimeMs: 15_000 }))
                .withEachConnector((c) => c.moveTasks("worker-1", "worker-1", "UNASSIGNED")),
        )
        .read(60_000, after)
        .read(70_000, after)
        .read(80_000, after);
      expect(d.eventsOf("canary-soaking")).toEqual([]);
    }
    expect(SETTINGS.canary).toBeUndefined();
  });
});
