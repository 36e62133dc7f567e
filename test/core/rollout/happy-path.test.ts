import { describe, expect, it } from "vitest";
import { summarizeRollout } from "../../../src/core/rollout/summarize.js";
import { clusterStateSentence } from "../../../src/wording/summary-text.js";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { startDriver } from "./rollout-driver.js";
import { cluster, down, TO } from "./rollout-fixtures.js";
import { rollFollower } from "./rollout-scripts.js";

/** The leader bounce: worker-1 takes over as leader; worker-3's tasks wait a poll, run on worker-1, come back. */
const leaderOut = (b: ClusterSnapshotBuilder) => down(b, "worker-3").leader("worker-1");
const onWorker1 = (b: ClusterSnapshotBuilder) =>
  b.leader("worker-1").withEachConnector((c) => c.moveTasks("worker-3", "worker-1"));

/** Both followers, then the leader, each settled; ends at 180 s. */
function rollAll() {
  const d = startDriver();
  const t1 = rollFollower(d, "worker-1", 0);
  const t2 = rollFollower(d, "worker-2", t1, () => cluster("worker-1"));
  const done = ["worker-1", "worker-2"];
  d.read(t2, cluster(...done))
    .accepted(t2 + 1_000)
    .read(t2 + 10_000, leaderOut(cluster(...done)))
    .read(t2 + 20_000, onWorker1(cluster(...done, "worker-3")))
    .read(t2 + 30_000, cluster(...done, "worker-3").leader("worker-1"))
    .read(t2 + 40_000, cluster(...done, "worker-3").leader("worker-1"))
    // the before-step read of a step 4 that does not exist
    .read(t2 + 40_000, cluster(...done, "worker-3").leader("worker-1"));
  return d;
}

describe("decide: happy path, 3 workers 3.6.1 → 3.7.1, leader last", () => {
  it("reads like the script of a follower step", () => {
    const d = startDriver();
    rollFollower(d, "worker-1", 0);
    expect(d.lines).toEqual([
      "read → rollout-planned, data-flow-unseen, step-started | restart-worker(worker-1)",
      "accepted → restart-issued | probe-worker(worker-1, 10000)",
      "read → - | probe-worker(worker-1, 10000)",
      "read → worker-back, gate-waiting | read-cluster(10000)",
      "read → gate-waiting | read-cluster(10000)",
      "read → step-settled | read-cluster(0)",
    ]);
    expect(d.restarts).toEqual([
      { kind: "restart-worker", step: 1, stepId: "job-1:1:1", worker: "worker-1" },
    ]);
    expect(d.eventsOf("worker-back")).toEqual([
      { kind: "worker-back", step: 1, worker: "worker-1", version: TO, restartMs: 20_000 },
    ]);
    const held = d.eventsOf("gate-waiting")[0]?.reasons.find((r) => r.code === "held-by-scheduled-delay");
    expect(held).toMatchObject({
      heldTasks: ["orders/0", "orders/3", "clicks/0"],
      remainingMs: 40_000,
      message: "3 tasks of worker-1 held by the scheduled delay: 40s left",
    });
  });

  it("restarts followers first and the leader last, each with a fresh stepId", () => {
    const d = rollAll();
    expect(d.restarts.map((r) => [r.step, r.worker, r.stepId])).toEqual([
      [1, "worker-1", "job-1:1:1"],
      [2, "worker-2", "job-1:2:1"],
      [3, "worker-3", "job-1:3:1"],
    ]);
    expect(d.state.steps.map((s) => [s.worker, s.isLeader, s.status])).toEqual([
      ["worker-1", false, "settled"],
      ["worker-2", false, "settled"],
      ["worker-3", true, "settled"],
    ]);
  });

  it.each([
    // follower: 3 tasks held from the 10 s poll to the 60 s poll = 3 × 50 s; they come back to it (0 moves)
    {
      step: 1,
      worker: "worker-1",
      restartMs: 20_000,
      settleMs: 50_000,
      tasksMoved: 0,
      taskDowntimeMs: 150_000,
    },
    {
      step: 2,
      worker: "worker-2",
      restartMs: 20_000,
      settleMs: 50_000,
      tasksMoved: 0,
      taskDowntimeMs: 150_000,
    },
    // leader: its 3 tasks are down for one poll, run on worker-1, then move back (3 + 3 moves)
    {
      step: 3,
      worker: "worker-3",
      restartMs: 20_000,
      settleMs: 20_000,
      tasksMoved: 6,
      taskDowntimeMs: 30_000,
    },
  ])("step $step ($worker) settles with measurements at poll resolution", (row) => {
    const settled = rollAll()
      .eventsOf("step-settled")
      .find((e) => e.step === row.step);
    expect(settled?.worker).toBe(row.worker);
    expect(settled?.measurements).toMatchObject({
      restartMs: row.restartMs,
      settleMs: row.settleMs,
      tasksMoved: row.tasksMoved,
      taskDowntimeMs: row.taskDowntimeMs,
      eagerRebalances: 0,
    });
  });

  it("finishes succeeded with a finish effect, and nothing happens after", () => {
    const d = rollAll();
    expect(d.lines.at(-1)).toBe("read → rollout-finished | finish(succeeded)");
    expect(d.eventsOf("rollout-finished")).toEqual([
      {
        kind: "rollout-finished",
        result: "succeeded",
        reason: { kind: "all-settled" },
      },
    ]);
    expect(d.state.finishedAt).toBe(140_000 + 40_000);
    d.read(200_000, cluster()).control(201_000, "abort");
    expect(d.lines.slice(-2)).toEqual(["read → - | finish(succeeded)", "abort → - | finish(succeeded)"]);
    expect(d.restarts).toHaveLength(3);
  });

  it("summarizeRollout gives the per-step and total figures", () => {
    const d = rollAll();
    const summary = summarizeRollout(d.state, 999_999);
    expect(summary).toMatchObject({
      jobId: "job-1",
      cluster: "prod",
      target: TO,
      result: "succeeded",
      reason: { kind: "all-settled" },
      totals: {
        wallMs: 180_000,
        stepsDone: 3,
        stepsTotal: 3,
        tasksMoved: 6,
        taskDowntimeMs: 330_000,
        approvals: 0,
      },
    });
    expect(summary.steps.map((s) => [s.worker, s.isLeader, s.status, s.tasksMoved])).toEqual([
      ["worker-1", false, "settled", 0],
      ["worker-2", false, "settled", 0],
      ["worker-3", true, "settled", 6],
    ]);
    expect(clusterStateSentence(d.state)).toBe("worker-1, worker-2, worker-3 restarted on 3.7.1.");
  });

  it("summarizes a running rollout with the step in flight and the workers left", () => {
    const d = startDriver();
    d.read(0, cluster()).accepted(1_000).read(10_000, down(cluster(), "worker-1"));
    const summary = summarizeRollout(d.state, 10_000);
    expect(summary.result).toBe("running");
    expect(summary.totals.wallMs).toBe(10_000);
    expect(summary.reason).toBeNull();
    expect(clusterStateSentence(d.state)).toBe(
      "worker-1 in flight (waiting-back); worker-2, worker-3 not restarted.",
    );
  });
});
