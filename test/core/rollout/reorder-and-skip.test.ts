import { describe, expect, it } from "vitest";
import { summarizeRollout } from "../../../src/core/rollout/summarize.js";
import { resumeDriver, startDriver } from "./rollout-driver.js";
import { cluster, down, RESTART, SETTINGS, TO } from "./rollout-fixtures.js";
import { rollFollower } from "./rollout-scripts.js";

describe("decide: the leader moves mid-rollout", () => {
  it("to the worker of the next step while a follower is pending: that step moves to the end", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    // worker-2 (step 2) now leads; worker-3 (step 3) is a pending follower
    const t2 = rollFollower(d, "worker-3", t1, () => cluster("worker-1").leader("worker-2"));
    expect(d.lines[6]).toBe("read → step-reordered, step-started | restart-worker(worker-3)");
    expect(d.eventsOf("step-reordered")).toEqual([
      {
        kind: "step-reordered",
        step: 3,
        worker: "worker-2",
        reason: { kind: "leader-now" },
      },
    ]);
    d.read(t2, cluster("worker-1", "worker-3").leader("worker-2"));
    expect(d.restarts.map((r) => [r.step, r.worker])).toEqual([
      [1, "worker-1"],
      [2, "worker-3"],
      [3, "worker-2"],
    ]);
    expect(d.state.steps.map((s) => [s.step, s.worker, s.isLeader, s.status])).toEqual([
      [1, "worker-1", false, "settled"],
      [2, "worker-3", false, "settled"],
      [3, "worker-2", true, "restart-issued"],
    ]);
  });

  it.each([
    { name: "to a worker already restarted", leader: "worker-1" },
    { name: "to the worker of the last step", leader: "worker-3" },
  ])("$name: nothing moves", ({ leader }) => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    d.read(t1, cluster("worker-1").leader(leader));
    expect(d.eventsOf("step-reordered")).toEqual([]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
  });
});

describe("decide: workers already on the target version", () => {
  it("a worker upgraded by someone else before its step is skipped, never restarted", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    d.read(t1, cluster("worker-1", "worker-2"));
    expect(d.lines.at(-1)).toBe("read → step-skipped, step-started | restart-worker(worker-3)");
    expect(d.eventsOf("step-skipped")).toEqual([
      { kind: "step-skipped", step: 2, worker: "worker-2", reason: { kind: "on-target", version: "3.7.1" } },
    ]);
    expect(d.state.steps[1]).toMatchObject({
      status: "skipped",
      note: { kind: "on-target", version: "3.7.1" },
      attempts: 0,
    });
    expect(summarizeRollout(d.state, t1).totals.stepsDone).toBe(2);
  });

  it("after its lost record was written back, a worker found on the target is skipped saying its lost part may have done it", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    // What the lost-record guard writes back: the checkpoint as last seen, marked restored.
    const resumed = resumeDriver({
      ...d.state,
      recordRestored: { at: t1, checkpointAt: d.state.updatedAt },
    }).takeover(t1);
    resumed.read(t1 + 1_000, cluster("worker-1", "worker-2"));
    expect(resumed.eventsOf("step-skipped")).toEqual([
      {
        kind: "step-skipped",
        step: 2,
        worker: "worker-2",
        reason: { kind: "on-target", version: "3.7.1", afterRecordLost: true },
      },
    ]);
    expect(resumed.restarts.map((r) => r.worker)).toEqual(["worker-3"]);
  });

  it("every remaining worker already upgraded: skips them all and finishes succeeded", () => {
    const d = startDriver();
    const t1 = rollFollower(d, "worker-1", 0);
    d.read(t1, cluster("worker-1", "worker-2", "worker-3"));
    expect(d.lines.at(-1)).toBe("read → step-skipped, step-skipped, rollout-finished | finish(succeeded)");
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });

  it("a worker on the target at planning time is left out of the plan", () => {
    const d = startDriver().read(0, cluster("worker-2"));
    expect(d.state.steps.map((s) => s.worker)).toEqual(["worker-1", "worker-3"]);
    expect(d.state.plan?.skipped).toEqual([
      { worker: "worker-2", reason: "already reports 3.7.1, which matches 3.7.1" },
    ]);
  });

  it("every worker on the target at planning time: nothing to do", () => {
    const d = startDriver().read(0, cluster("worker-1", "worker-2", "worker-3"));
    expect(d.lines).toEqual([
      "read → rollout-planned, data-flow-unseen, rollout-finished | finish(succeeded)",
    ]);
    expect(d.eventsOf("rollout-finished")[0]?.reason).toEqual({ kind: "nothing-to-do" });
  });

  it("a plain restart never skips a worker for its version", () => {
    const d = startDriver({ target: RESTART }).read(0, cluster());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
    expect(d.state.steps).toHaveLength(3);
  });
});

describe("decide: planning", () => {
  it("connector statuses unreadable: read again for the settle allowance, then finished failed, nothing restarted", () => {
    const d = startDriver().read(0, cluster().connectorsUnreadable("timeout"));
    expect(d.state.phase).toEqual({ kind: "planning" });
    d.read(30_000, cluster().connectorsUnreadable("timeout"));
    expect(d.state.phase).toEqual({ kind: "planning" });
    d.read(60_000, cluster().connectorsUnreadable("timeout"));
    expect(d.state.phase).toEqual({
      kind: "finished",
      result: "failed",
      reason: { kind: "connectors-unreadable", cluster: "prod", error: "timeout" },
    });
    expect(d.restarts).toEqual([]);
  });

  it("connector statuses unreadable for a moment (REST refusing): planned once they read", () => {
    const d = startDriver().read(0, cluster().connectorsUnreadable("connection refused"));
    d.read(10_000, cluster());
    expect(d.state.steps.map((s) => s.worker)).toEqual(["worker-1", "worker-2", "worker-3"]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });
});

describe("decide: pace rotate", () => {
  const rotate = { settings: { planPolicy: { ...SETTINGS.planPolicy, pace: "rotate" as const } } };

  it("plans the leader first, then brings the worker that leads by then forward", () => {
    const d = startDriver(rotate);
    expect(d.read(0, cluster()).state.steps.map((s) => [s.worker, s.isLeader])).toEqual([
      ["worker-3", true],
      ["worker-1", false],
      ["worker-2", false],
    ]);
    // worker-3's stop makes worker-2 the leader; the new leader hands worker-3's tasks out at once.
    const led = () => cluster().leader("worker-2");
    const settled = () => led().withWorker("worker-3", (w) => w.version(TO));
    d.accepted(1_000).read(10_000, down(led(), "worker-3")).read(40_000, settled()).read(50_000, settled());
    d.read(60_000, settled());
    expect(d.eventsOf("step-reordered")).toEqual([
      { kind: "step-reordered", step: 2, worker: "worker-2", reason: { kind: "leader-first" } },
    ]);
    expect(d.restarts.map((r) => [r.step, r.worker])).toEqual([
      [1, "worker-3"],
      [2, "worker-2"],
    ]);
    expect(d.state.steps.map((s) => [s.step, s.worker, s.isLeader])).toEqual([
      [1, "worker-3", false],
      [2, "worker-2", true],
      [3, "worker-1", false],
    ]);
  });

  it("a restarted worker leading: the next follower goes in its order, nothing moves", () => {
    const d = startDriver(rotate);
    d.read(0, cluster());
    const led = () =>
      cluster()
        .leader("worker-3")
        .withWorker("worker-3", (w) => w.version(TO));
    d.accepted(1_000).read(10_000, down(cluster().leader("worker-3"), "worker-3"));
    d.read(40_000, led()).read(50_000, led()).read(60_000, led());
    expect(d.eventsOf("step-reordered")).toEqual([]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-3", "worker-1"]);
  });
});
