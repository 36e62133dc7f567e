import { describe, expect, it } from "vitest";
import type { PlanPolicy } from "../../../src/core/plan/plan-types.js";
import { backPollMs, windowGatePollMs } from "../../../src/core/rollout/poll-cadence.js";
import type { RolloutEffect } from "../../../src/core/rollout/rollout-io.js";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { type RolloutDriver, startDriver } from "./rollout-driver.js";
import { backHeld, cluster, down, RESTART, SETTINGS, TO } from "./rollout-fixtures.js";

/**
 * Pace `window`. The fixtures: delay 60 s, restart 20 s ± 10 %, margin 2 s + 5 s, probe 1 s: k* = 1 +
 * ⌊(60 − 20 − 7)/21⌋ = 2 followers, so worker-1 and worker-2 share a window that the leader worker-3 closes.
 */
const windowPace = (more: Partial<PlanPolicy> = {}) => ({
  settings: { planPolicy: { ...SETTINGS.planPolicy, pace: "window" as const, ...more } },
});
const probeOf = (d: RolloutDriver): Extract<RolloutEffect, { kind: "probe-worker" }> | undefined =>
  d.action.kind === "probe-worker" ? d.action : undefined;

/** worker-1 and worker-2 on the target and back, their tasks held (the window's deadline not yet passed). */
const bothHeld = () => backHeld(backHeld(cluster("worker-1", "worker-2"), "worker-1"), "worker-2");

/** One follower of a window from its restart at `t0` until seen back at `backAt` (probes, then the whole read). */
function followerInWindow(
  d: RolloutDriver,
  worker: string,
  t0: number,
  backAt: number,
  before: () => ClusterSnapshotBuilder,
) {
  d.read(t0, before());
  expect(d.restarts.at(-1)?.worker).toBe(worker);
  d.accepted(t0);
  d.probed(t0 + 5_000, down(before(), worker), worker);
  d.probed(
    backAt,
    backHeld(before(), worker).withWorker(worker, (w) => w.version(TO)),
    worker,
  );
  expect(d.action).toEqual({ kind: "read-cluster", afterMs: 0 });
  d.read(
    backAt,
    backHeld(before(), worker).withWorker(worker, (w) => w.version(TO)),
  );
}

describe("decide: pace window, followers back to back, the leader closes the window", () => {
  it("restarts worker-2 as soon as worker-1 is back, then the leader once worker-2 is back; one gate at the end", () => {
    const d = startDriver(windowPace());
    expect(d.state.plan).toBeNull();
    followerInWindow(d, "worker-1", 0, 21_000, () => cluster());
    expect(d.state.plan?.windows.map((w) => [w.steps, w.closedByLeader])).toEqual([[[1, 2, 3], true]]);
    expect(d.lastEvents.map((e) => e.kind)).toEqual(["worker-back", "step-settled"]);
    // 21 s + 20 s + 7 s margin ≤ the 60 s deadline: worker-2 follows at once
    followerInWindow(d, "worker-2", 21_000, 42_000, () => backHeld(cluster("worker-1"), "worker-1"));
    // 42 s + 27 s > 60 s, but the next step is the leader closing the window: no deadline to meet
    expect(d.lastEvents.map((e) => e.kind)).toEqual(["worker-back", "step-settled"]);
    d.read(42_000, bothHeld());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2", "worker-3"]);
    expect(d.eventsOf("gate-waiting")).toEqual([]);
    expect(d.state.steps.map((s) => [s.worker, s.status, s.measurements.settleMs])).toEqual([
      ["worker-1", "settled", 0],
      ["worker-2", "settled", 0],
      ["worker-3", "restart-issued", null],
    ]);
    // the leader's gate has no deadline: the new leader handed the held tasks out at once
    d.accepted(42_000).probed(
      63_000,
      cluster("worker-1", "worker-2", "worker-3").leader("worker-1"),
      "worker-3",
    );
    d.read(63_000, cluster("worker-1", "worker-2", "worker-3").leader("worker-1"));
    expect(d.state.phase).toMatchObject({ kind: "settling", step: 3 });
    const phase = d.state.phase.kind === "settling" ? d.state.phase : null;
    expect(phase?.baseline.delayDeadline).toBeNull();
    expect(phase?.baseline.snapshot.readAt).toBe(0);
  });

  it("leaderClosesLastWindow off: the leader waits for the window's gate and runs alone", () => {
    const d = startDriver(windowPace({ leaderClosesLastWindow: false }));
    followerInWindow(d, "worker-1", 0, 21_000, () => cluster());
    expect(d.state.plan?.windows.map((w) => w.steps)).toEqual([[1, 2]]);
    followerInWindow(d, "worker-2", 21_000, 42_000, () => backHeld(cluster("worker-1"), "worker-1"));
    expect(d.state.phase).toMatchObject({ kind: "settling", step: 2 });
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
  });

  it("a window cut short by its deadline ends there, and the rest forms a window of its own", () => {
    const d = startDriver(windowPace());
    // worker-1 is back at 36 s: 36 + 20 + 7 > 60, worker-2 would not be back before the deadline
    followerInWindow(d, "worker-1", 0, 36_000, () => cluster());
    expect(d.state.phase).toMatchObject({ kind: "settling", step: 1 });
    expect(d.state.steps[0]?.note).toEqual({ kind: "window-cut-short", remaining: 2 });
    expect(d.state.plan?.windows.map((w) => [w.steps, w.closedByLeader])).toEqual([
      [[1, 2, 3], true],
      [[2, 3], true],
    ]);
    expect(d.state.plan?.steps.map((s) => s.window)).toEqual([0, 1, 1]);
    // only the window's held tasks are missing: one poll just after the deadline (60 s + 1 s), not every 10 s
    expect(d.action).toEqual({ kind: "read-cluster", afterMs: 25_000 });
    const settled = () => cluster("worker-1");
    d.read(61_000, settled()).read(71_000, settled());
    expect(d.lastEvents.map((e) => e.kind)).toEqual(["step-settled"]);
    d.read(71_000, settled());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1", "worker-2"]);
    // a new window, a new deadline: worker-2 then the leader
    expect(d.state.openWindow).toMatchObject({ key: { kind: "pace", window: 1 }, deadline: 131_000 });
  });
});

describe("decide: how a restarted worker is watched", () => {
  it.each([
    { name: "pace safe: a probe every poll interval", pace: "safe" as const, from: "3.6.1", afterMs: 10_000 },
    { name: "pace window: a probe every second", pace: "window" as const, from: "3.6.1", afterMs: 1_000 },
    {
      name: "eager window: ten times the poll rate, ≥ 0.5 s",
      pace: "safe" as const,
      from: "2.2.2",
      afterMs: 1_000,
    },
  ])("$name", ({ pace, from, afterMs }) => {
    const d = startDriver(windowPace({ pace }));
    d.read(
      0,
      cluster().withWorkers(3, (w) => w.version(from)),
    );
    if (d.pending()?.kind === "eager-window")
      d.answer(1, "approve").read(
        2,
        cluster().withWorkers(3, (w) => w.version(from)),
      );
    d.accepted(3);
    expect(probeOf(d)).toEqual({ kind: "probe-worker", worker: "worker-1", afterMs, metrics: false });
    expect(backPollMs(d.state, d.state.steps[0] ?? ({} as never))).toBe(afterMs);
  });

  it.each([
    // expected restart 20 s ± 10 %: from 17 s (18 s less one interval) to 23 s after the restart, every 250 ms
    { elapsed: 10_000, afterMs: 1_000 },
    { elapsed: 17_000, afterMs: 250 },
    { elapsed: 22_500, afterMs: 250 },
    { elapsed: 23_500, afterMs: 1_000 },
  ])("pace window, $elapsed ms after the restart: the next probe in $afterMs ms", ({ elapsed, afterMs }) => {
    const d = startDriver(windowPace());
    d.read(0, cluster()).accepted(0).probed(elapsed, down(cluster(), "worker-1"), "worker-1");
    expect(probeOf(d)?.afterMs).toBe(afterMs);
  });

  it("a plain restart's probe reads the metrics too (the process start time proves it)", () => {
    const d = startDriver({ ...windowPace(), target: RESTART });
    d.read(0, cluster()).accepted(0);
    expect(probeOf(d)).toMatchObject({ worker: "worker-1", metrics: true });
  });

  it("a probe that finds the worker back asks for one read of the whole cluster; a probe of another worker changes nothing", () => {
    const d = startDriver(windowPace());
    d.read(0, cluster()).accepted(0);
    d.probed(20_000, cluster("worker-2"), "worker-2");
    expect(d.state.phase).toMatchObject({ kind: "waiting-back", step: 1, seenDown: false });
    d.probed(21_000, cluster("worker-1"), "worker-1");
    expect(d.action).toEqual({ kind: "read-cluster", afterMs: 0 });
    expect(d.state.phase).toMatchObject({ kind: "waiting-back", step: 1 });
  });
});

describe("windowGatePollMs: the gate ending a pace window", () => {
  const settle = (d: RolloutDriver) => (d.state.phase.kind === "settling" ? d.state.steps[0] : undefined);
  it.each([
    { name: "before the deadline, only held tasks missing", now: 40_000, reasons: "held", afterMs: 21_000 },
    { name: "far from the deadline: at most 30 s", now: 37_000, reasons: "held", afterMs: 24_000 },
    { name: "before the deadline, something else missing", now: 40_000, reasons: "down", afterMs: 10_000 },
    {
      name: "after the deadline: N polls spanning the quiet period (10 s / 1)",
      now: 61_000,
      reasons: "unstable",
      afterMs: 10_000,
    },
  ])("$name → $afterMs ms", ({ now, reasons, afterMs }) => {
    const d = startDriver(windowPace());
    followerInWindow(d, "worker-1", 0, 36_000, () => cluster());
    const step = settle(d);
    if (!step) throw new Error("not settling");
    const held = {
      code: "held-by-scheduled-delay",
      worker: "worker-1",
      heldTasks: ["orders/0"],
      remainingMs: 60_000 - now,
      message: "",
    } as const;
    const list =
      reasons === "held"
        ? [
            held,
            {
              code: "tasks-not-running",
              tasks: [{ task: "orders/1", state: "UNASSIGNED", workerId: "worker-2:8083" }],
              message: "",
            } as const,
          ]
        : reasons === "down"
          ? [held, { code: "worker-down", worker: "worker-2", message: "" } as const]
          : [{ code: "assignment-unstable", stablePolls: 1, needed: 2, message: "" } as const];
    expect(windowGatePollMs(d.state, step, list, now)).toBe(afterMs);
  });

  it("a shorter quiet period confirms faster, never under the probe interval", () => {
    const d = startDriver({
      settings: { ...windowPace().settings, gatePolicy: { consecutivePolls: 3, quietPeriodMs: 2_000 } },
    });
    followerInWindow(d, "worker-1", 0, 36_000, () => cluster());
    const step = settle(d);
    if (!step) throw new Error("not settling");
    const unstable = [{ code: "assignment-unstable", stablePolls: 1, needed: 3, message: "" } as const];
    expect(windowGatePollMs(d.state, step, unstable, 61_000)).toBe(1_000);
  });
});
