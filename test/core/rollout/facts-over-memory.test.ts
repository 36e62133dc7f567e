import { describe, expect, it } from "vitest";
import { startDriver } from "./rollout-driver.js";
import { cluster, RESTART, SETTINGS } from "./rollout-fixtures.js";

/** Workers' process start times (app-info `start-time-ms`): before the rollout began unless listed. */
const started = (at: Readonly<Record<string, number>>) => () => {
  const b = cluster();
  for (const name of ["worker-1", "worker-2", "worker-3"])
    b.withWorker(name, (w) => w.metrics({ startTimeMs: at[name] ?? 1 }));
  return b;
};

describe("decide: a plain restart asks the cluster whether a worker still needs its step", () => {
  it("skips a worker whose process started after the rollout began, restarts the others", () => {
    const d = startDriver({ target: RESTART, now: 1_000 });
    d.read(1_000, started({ "worker-1": 1_500 })());
    expect(d.eventsOf("step-skipped")).toEqual([
      {
        kind: "step-skipped",
        step: 1,
        worker: "worker-1",
        reason: { kind: "restarted-since-start", startedAt: 1_500 },
      },
    ]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-2"]);
  });

  it("a rerun after the job store lost its data (target.since = the lost rollout's start) skips what was done", () => {
    const d = startDriver({ target: { ...RESTART, since: 1_000 }, now: 50_000 });
    d.read(50_000, started({ "worker-1": 20_000, "worker-2": 40_000 })());
    expect(d.eventsOf("step-skipped").map((e) => e.worker)).toEqual(["worker-1", "worker-2"]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-3"]);
  });

  it("without the start-time metric nothing is skipped (memory is all there is)", () => {
    const d = startDriver({ target: RESTART, now: 1_000 });
    d.read(1_000, cluster());
    expect(d.eventsOf("step-skipped")).toEqual([]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });

  it("after a takeover of an in-flight restart, a newer process start confirms it: no restart-unconfirmed prompt", () => {
    const d = startDriver({ target: RESTART, now: 1_000 });
    d.read(1_000, started({})());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
    // The runner died with the restart in flight; another replica takes over. worker-1 never looked down to it.
    d.takeover(30_000);
    d.read(31_000, started({ "worker-1": 1_200 })());
    expect(d.approvalsAsked()).toEqual([]);
    expect(d.eventsOf("worker-back").map((e) => e.worker)).toEqual(["worker-1"]);
    expect(d.restarts).toHaveLength(1);
  });
});

describe("decide: a plain restart whose restart the executor refused before acting", () => {
  it("a worker that crashed and came back meanwhile is not taken for the refused restart: the retry restarts it", () => {
    const d = startDriver({ target: RESTART, now: 1_000 });
    d.read(1_000, started({})());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
    d.failed(1_100, false);
    // worker-1 crashed on its own and started again after the refused attempt; then the person retries.
    d.answer(5_000, "approve").read(5_000, started({ "worker-1": 3_000 })());
    expect(d.eventsOf("step-skipped")).toEqual([]);
    expect(d.eventsOf("worker-back")).toEqual([]);
    expect(d.restarts).toEqual([
      { kind: "restart-worker", step: 1, stepId: "job-1:1:1", worker: "worker-1" },
      { kind: "restart-worker", step: 1, stepId: "job-1:1:2", worker: "worker-1" },
    ]);
  });

  it("a worker the plan could not read is restarted into the version it reports at its step", () => {
    const d = startDriver({ target: RESTART, now: 1_000 });
    // worker-1 answered without its version when the plan was made (the plan asks about the eager window then).
    d.read(
      1_000,
      started({})().withWorker("worker-1", (w) => w.version(null)),
    );
    expect(d.state.steps[0]).toMatchObject({ worker: "worker-1", fromVersion: null });
    d.answer(2_000, "approve").read(2_000, started({})());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
    expect(d.state.steps[0]).toMatchObject({ fromVersion: "3.6.1", status: "restart-issued" });
  });
});

describe("decide: a plain restart without --since where some workers started long after the rest", () => {
  const DAY = 86_400_000;
  // The rollout starts on day 3; worker-1 started 40 s before, the others on day 0.
  const now = 3 * DAY;
  const read = started({ "worker-1": now - 40_000, "worker-2": 1, "worker-3": 1 });

  it("asks first, before any restart: which workers and when they started", () => {
    const d = startDriver({ target: RESTART, now });
    d.read(now, read());
    expect(d.pending()).toMatchObject({
      kind: "recently-started",
      step: null,
      options: ["continue", "approve", "abort"],
      facts: {
        kind: "recently-started",
        workers: [{ worker: "worker-1", startedAt: now - 40_000 }],
        othersStartedAt: 1,
      },
    });
    expect(d.pendingWorded()?.prompt).toBe(
      "worker-1 started 40s ago, the others 3d00h ago: an interrupted rollout? Count it as restarted (skip), or restart it too?",
    );
    expect(d.restarts).toEqual([]);
  });

  it("continue counts them as restarted: they are skipped, the others restarted", () => {
    const d = startDriver({ target: RESTART, now });
    d.read(now, read());
    d.answer(now + 1_000, "continue").read(now + 1_000, read());
    expect(d.eventsOf("step-skipped").map((e) => e.worker)).toEqual(["worker-1"]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-2"]);
    expect(d.approvalsAsked().filter((a) => a.kind === "recently-started")).toHaveLength(1);
  });

  it("approve restarts them too, asked once", () => {
    const d = startDriver({ target: RESTART, now });
    d.read(now, read());
    d.answer(now + 1_000, "approve").read(now + 1_000, read());
    expect(d.eventsOf("step-skipped")).toEqual([]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
    expect(d.approvalsAsked().filter((a) => a.kind === "recently-started")).toHaveLength(1);
  });

  it("is not asked with --since, for an upgrade, or when the workers started close together", () => {
    const since = startDriver({ target: { ...RESTART, since: now - 60_000 }, now });
    since.read(now, read());
    expect(since.approvalsAsked()).toEqual([]);
    const close = startDriver({ target: RESTART, now });
    close.read(
      now,
      started({ "worker-1": now - 40_000, "worker-2": now - 200_000, "worker-3": now - 300_000 })(),
    );
    expect(close.approvalsAsked()).toEqual([]);
  });
});

describe("decide: a rerun that finds every worker restarted already succeeds only once every task runs", () => {
  const since = { ...RESTART, since: 1_000 };
  const allStarted = { "worker-1": 20_000, "worker-2": 30_000, "worker-3": 40_000 };
  /** worker-1 is back from its restart holding nothing; REST still shows its old tasks RUNNING there (stale). */
  const staleOnWorker1 = () =>
    started(allStarted)().withWorker("worker-1", (w) =>
      w.metrics({ assignedTasks: 0, assignedConnectors: 0 }),
    );

  it("waits, saying which tasks it waits for, and succeeds at the read where they run on a live worker", () => {
    const d = startDriver({ target: since, now: 50_000 });
    d.read(50_000, staleOnWorker1());
    expect(d.eventsOf("step-skipped")).toHaveLength(3);
    expect(d.eventsOf("rollout-finished")).toEqual([]);
    const waiting = d.eventsOf("gate-waiting").at(-1);
    expect(waiting?.worker).toBe(d.state.steps.at(-1)?.worker);
    expect(waiting?.reasons.map((r) => r.code)).toEqual(["tasks-not-running"]);
    expect(waiting?.reasons[0]?.message).toContain("orders/0 RUNNING@worker-1");
    d.read(60_000, staleOnWorker1());
    expect(d.eventsOf("rollout-finished")).toEqual([]);
    d.read(70_000, started(allStarted)());
    expect(d.eventsOf("rollout-finished")).toEqual([
      { kind: "rollout-finished", result: "succeeded", reason: { kind: "all-settled" } },
    ]);
    expect(d.restarts).toEqual([]);
  });

  it("fails with the tasks when they do not run within gate.failAfterMs, restarting nothing", () => {
    const d = startDriver({
      target: since,
      now: 50_000,
      settings: { gatePolicy: { ...SETTINGS.gatePolicy, failAfterMs: 100_000 } },
    });
    d.read(50_000, staleOnWorker1());
    const heldSince = d.state.phase.kind === "before-step" ? d.state.phase.closingSince : undefined;
    expect(heldSince).toBeTypeOf("number");
    d.read(100_000, staleOnWorker1());
    expect(d.eventsOf("rollout-finished")).toEqual([]);
    d.read((heldSince ?? 0) + 100_000, staleOnWorker1());
    const finished = d.eventsOf("rollout-finished");
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({
      result: "failed",
      reason: { kind: "unsettled-at-end", waitedMs: 100_000 },
    });
    expect(
      finished[0]?.reason.kind === "unsettled-at-end" && finished[0].reason.tasks.map((t) => t.task),
    ).toEqual(["orders/0", "orders/3", "clicks/0"]);
    expect(d.restarts).toEqual([]);
  });
});

describe("decide: a worker that does not answer at its step may be restarting: it is given time first", () => {
  const since = { ...RESTART, since: 1_000 };
  const worker1Down = () => started({})().withWorker("worker-1", (w) => w.unreachable());

  it("a rerun waits for it and skips it once it answers with a process started since: no second restart", () => {
    const d = startDriver({ target: since, now: 5_000 });
    d.read(5_000, worker1Down());
    if (d.pending()?.kind === "blocking-findings") d.answer(5_500, "approve").read(5_500, worker1Down());
    expect(d.restarts).toEqual([]);
    expect(d.eventsOf("gate-waiting").at(-1)?.reasons[0]?.message).toBe(
      "worker-1 does not answer (connection refused): it may be restarting; waiting up to 60s for it before restarting it",
    );
    d.read(15_000, worker1Down());
    expect(d.restarts).toEqual([]);
    d.read(25_000, started({ "worker-1": 20_000 })());
    expect(d.eventsOf("step-skipped").map((e) => e.worker)).toEqual(["worker-1"]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-2"]);
  });

  it("one that stays silent for three expected restarts is restarted as planned", () => {
    const d = startDriver({ target: since, now: 5_000 });
    d.read(5_000, worker1Down());
    if (d.pending()?.kind === "blocking-findings") d.answer(5_500, "approve").read(5_500, worker1Down());
    d.read(40_000, worker1Down());
    expect(d.restarts).toEqual([]);
    d.read(66_000, worker1Down());
    // Its version unknown, the plan cannot rule out an eager window: asked, as for any worker whose version is unread.
    expect(d.pending()?.kind).toBe("eager-window");
    d.answer(67_000, "approve").read(67_000, worker1Down());
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-1"]);
  });
});
