import { describe, expect, it } from "vitest";
import { groupPaceWindows, type WindowCandidate } from "../../../src/core/plan/group-pace-windows.js";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import type { PlanPolicy, RolloutTarget } from "../../../src/core/plan/plan-types.js";
import { renderPlanText } from "../../../src/core/plan/render-plan-text.js";
import { replanWindows } from "../../../src/core/plan/replan-windows.js";
import { resolvePlanPolicy } from "../../../src/core/plan/resolve-plan-policy.js";
import { fitsBeforeDeadline, windowTiming } from "../../../src/core/plan/window-timing.js";
import { aCluster } from "../../support/cluster-snapshot-builder.js";

/** Pace at the frontier: the time bound k*, the greedy fill, the leader closing the last window. */
const upgrade: RolloutTarget = { kind: "upgrade", version: "3.7.1", argument: "v3.7.1" };

describe("windowTiming: k* = 1 + ⌊(D − r̂ − m)/s⌋, m = jitter × r̂ + floor, s = r̂ + probe interval", () => {
  it.each([
    // D, r̂, jitter, floor, probe → margin, step, k*
    { delay: 300_000, restart: 40_000, jitter: 0.1, floor: 5_000, probe: 1_000, margin: 9_000, k: 7 },
    { delay: 300_000, restart: 40_000, jitter: 0.1, floor: 30_000, probe: 1_000, margin: 34_000, k: 6 },
    { delay: 300_000, restart: 40_000, jitter: 0.1, floor: 5_000, probe: 5_000, margin: 9_000, k: 6 },
    { delay: 300_000, restart: 100_000, jitter: 0.1, floor: 5_000, probe: 1_000, margin: 15_000, k: 2 },
    { delay: 70_000, restart: 40_000, jitter: 0.1, floor: 5_000, probe: 1_000, margin: 9_000, k: 1 },
    { delay: 30_000, restart: 60_000, jitter: 0.1, floor: 5_000, probe: 1_000, margin: 11_000, k: 0 },
    { delay: 300_000, restart: 40_000, jitter: 0, floor: 0, probe: 1_000, margin: 0, k: 7 },
  ])("D $delay, r̂ $restart ± $jitter, floor $floor, probe $probe → k* $k", (c) => {
    const t = windowTiming(
      resolvePlanPolicy({
        connectProtocol: null,
        scheduledRebalanceMaxDelayMs: c.delay,
        expectedRestartMs: c.restart,
        restartJitter: c.jitter,
        windowMarginFloorMs: c.floor,
        windowProbeIntervalMs: c.probe,
      }),
      c.delay,
    );
    expect(t).toEqual({
      delayMs: c.delay,
      restartMs: c.restart,
      marginMs: c.margin,
      stepMs: c.restart + c.probe,
      followersPerWindow: c.k,
    });
  });

  it.each([
    // the engine's side of the same bound: a follower stopping at `now` is back r̂ + m before the deadline
    { now: 0, deadline: 300_000, fits: true },
    { now: 251_000, deadline: 300_000, fits: true },
    { now: 251_001, deadline: 300_000, fits: false },
  ])("a follower stopping at $now fits before $deadline: $fits", ({ now, deadline, fits }) => {
    const t = windowTiming(
      resolvePlanPolicy({
        connectProtocol: null,
        scheduledRebalanceMaxDelayMs: 300_000,
        expectedRestartMs: 40_000,
      }),
      300_000,
    );
    expect(fitsBeforeDeadline(t, now, deadline)).toBe(fits);
  });
});

describe("groupPaceWindows: greedy fill, optional cap, the leader closes", () => {
  const timing = (k: number) => ({
    delayMs: 300_000,
    restartMs: 40_000,
    marginMs: 9_000,
    stepMs: 41_000,
    followersPerWindow: k,
  });
  const followers = (n: number, tasks = 10): WindowCandidate[] =>
    Array.from({ length: n }, (_, i) => ({ step: i + 1, windowable: true, tasks }));
  const leader = (step: number, mayClose = true): WindowCandidate => ({
    step,
    windowable: false,
    tasks: 10,
    isLeader: true,
    mayClose,
  });

  it.each([
    {
      name: "11 followers + leader, k* 7",
      k: 7,
      n: 11,
      cap: 1,
      close: true,
      want: [
        [1, 2, 3, 4, 5, 6, 7],
        [8, 9, 10, 11, 12],
      ],
    },
    {
      name: "leader does not close",
      k: 7,
      n: 11,
      cap: 1,
      close: false,
      want: [
        [1, 2, 3, 4, 5, 6, 7],
        [8, 9, 10, 11],
      ],
    },
    {
      name: "a lone last follower still forms a window with the leader",
      k: 5,
      n: 6,
      cap: 1,
      close: true,
      want: [
        [1, 2, 3, 4, 5],
        [6, 7],
      ],
    },
    {
      name: "the held-share cap binds before k*",
      k: 7,
      n: 11,
      cap: 0.25,
      close: true,
      want: [
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
        [10, 11, 12],
      ],
    },
    {
      name: "k* 1: no follower shares a window; the leader closes the last follower's",
      k: 1,
      n: 3,
      cap: 1,
      close: true,
      want: [[3, 4]],
    },
    { name: "k* 0: nothing fits, not even the leader's window", k: 0, n: 3, cap: 1, close: true, want: [] },
  ])("$name", ({ k, n, cap, close, want }) => {
    const windows = groupPaceWindows([...followers(n), leader(n + 1, close)], {
      totalTasks: 10 * (n + 1),
      timing: timing(k),
      maxHeldShare: cap,
    });
    expect(windows.map((w) => w.steps)).toEqual(want);
    expect(windows.map((w) => w.closedByLeader)).toEqual(want.map((w) => close && w.includes(n + 1)));
  });

  it("a leader-closed window hands its tasks out at the leader's stop: k followers × s after the first stop", () => {
    const [w] = groupPaceWindows([...followers(4), leader(5)], {
      totalTasks: 50,
      timing: timing(7),
      maxHeldShare: 1,
    });
    expect(w).toMatchObject({
      steps: [1, 2, 3, 4, 5],
      predictedDeadlineMs: 4 * 41_000,
      predictedHeldShare: 0.8,
    });
  });

  it("an eager or overrunning step breaks a window", () => {
    const c = followers(5);
    const broken = c.map((x) => (x.step === 3 ? { ...x, windowable: false } : x));
    const windows = groupPaceWindows(broken, { totalTasks: 50, timing: timing(7), maxHeldShare: 1 });
    expect(windows.map((w) => w.steps)).toEqual([
      [1, 2],
      [4, 5],
    ]);
  });
});

describe("planRollout and replanWindows at scenario (a): 12 workers, 160 tasks, D 300 s, r̂ 40 s ± 10 %", () => {
  const names = Array.from({ length: 12 }, (_, i) => `worker-${i + 1}`);
  const snapshot = () =>
    aCluster()
      .withWorkers(12, (w) => w.version("3.6.2"))
      .leader("worker-12")
      .withConnector("orders", (c) => c.tasks(156, "RUNNING", names))
      .build();
  const policy: PlanPolicy = {
    connectProtocol: null,
    scheduledRebalanceMaxDelayMs: 300_000,
    expectedRestartMs: 40_000,
    pace: "window",
  };

  it("plans 7 followers, then 4 followers closed by the leader (the cap no longer binds by default)", () => {
    const plan = planRollout(snapshot(), upgrade, policy);
    expect(plan.windows.map((w) => [w.steps, w.closedByLeader])).toEqual([
      [[1, 2, 3, 4, 5, 6, 7], false],
      [[8, 9, 10, 11, 12], true],
    ]);
    expect(plan.steps.at(-1)).toMatchObject({ worker: "worker-12", isLeader: true, window: 1 });
    expect(plan.steps.at(-1)?.reasons.join(" ")).toContain("closes the delay window of steps 8, 9, 10, 11");
    // held until the deadline, less one turn per position; in the leader's window until the leader's stop
    expect(plan.steps.slice(0, 7).map((s) => s.predictedDowntimeMs)).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => 300_000 - i * 41_000 + 5_000),
    );
    expect(plan.steps.slice(7, 11).map((s) => s.predictedDowntimeMs)).toEqual(
      [4, 3, 2, 1].map((k) => k * 41_000 + 5_000),
    );
    // (W − 1)(D + g) + k_L·s + the leader's own bounce
    expect(plan.totals.predictedWallMs.window).toBe(
      300_000 + 35_000 + 4 * 41_000 + (40_000 + 10_000 + 30_000),
    );
  });

  it("leaderClosesLastWindow off: the leader runs alone after the last window", () => {
    const plan = planRollout(snapshot(), upgrade, { ...policy, leaderClosesLastWindow: false });
    expect(plan.windows.map((w) => w.steps)).toEqual([
      [1, 2, 3, 4, 5, 6, 7],
      [8, 9, 10, 11],
    ]);
    expect(plan.steps.at(-1)?.window).toBeNull();
  });

  it.each([
    {
      cutAfter: 3,
      want: [
        [4, 5, 6, 7, 8, 9, 10],
        [11, 12],
      ],
    },
    { cutAfter: 6, want: [[7, 8, 9, 10, 11, 12]] },
    { cutAfter: 10, want: [[11, 12]] },
  ])(
    "a window cut short after step $cutAfter: the rest is grouped again from the next step",
    ({ cutAfter, want }) => {
      const plan = planRollout(snapshot(), upgrade, policy);
      const remaining = plan.steps.filter((s) => s.step > cutAfter).map((s) => s.worker);
      const again = replanWindows(plan, policy, remaining);
      expect(again.windows.slice(plan.windows.length).map((w) => w.steps)).toEqual(want);
      expect(again.windows.slice(0, plan.windows.length)).toEqual(plan.windows);
      for (const [i, w] of want.entries())
        for (const step of w) expect(again.steps[step - 1]?.window).toBe(plan.windows.length + i);
      expect(again.steps.filter((s) => s.step <= cutAfter)).toEqual(
        plan.steps.filter((s) => s.step <= cutAfter),
      );
    },
  );
});

describe("renderPlanText: a window the leader closes says so", () => {
  it("names the leader's window apart from the deadline's", () => {
    const snapshot = aCluster()
      .withWorkers(4, (w) => w.version("3.6.2"))
      .leader("worker-4")
      .withConnector("orders", (c) => c.tasks(8, "RUNNING", ["worker-1", "worker-2", "worker-3", "worker-4"]))
      .build();
    const plan = planRollout(snapshot, upgrade, {
      connectProtocol: null,
      scheduledRebalanceMaxDelayMs: 100_000,
      expectedRestartMs: 40_000,
      pace: "window",
    });
    // k* = 1 + ⌊(100 − 40 − 9)/41⌋ = 2: [1, 2], then worker-3 with the leader
    const text = renderPlanText(plan).split("\n");
    expect(text.filter((l) => l.startsWith("Delay window"))).toEqual([
      "Delay window 1: steps 1, 2, 50% of tasks held, deadline 1m40s after the first stop",
      "Delay window 2: steps 3, 4, closed by the leader: 25% of tasks held until its stop, 41s after the first stop",
    ]);
  });
});
