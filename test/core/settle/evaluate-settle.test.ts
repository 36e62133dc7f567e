import { describe, expect, it } from "vitest";
import { evaluateSettle } from "../../../src/core/settle/evaluate-settle.js";
import type {
  Baseline,
  GatePolicy,
  GateReason,
  SettleVerdict,
} from "../../../src/core/settle/settle-types.js";
import type { ClusterSnapshot } from "../../../src/core/snapshot.js";
import {
  baselineFor,
  cluster,
  DEADLINE,
  heldAfterGracefulStop,
  pollsAt,
  STOP_AT,
} from "./settle-fixtures.js";

/** The gate's verdict on `polls`, evaluated when the last of them was read. */
function verdictOn(
  baseline: Baseline,
  polls: readonly ClusterSnapshot[],
  policy: GatePolicy = {},
): SettleVerdict {
  return evaluateSettle({ baseline, polls, policy, now: polls.at(-1)?.readAt ?? 0 });
}

const codes = (v: SettleVerdict) => (v.kind === "settled" ? [] : v.reasons.map((r) => r.code));
const reason = <C extends GateReason["code"]>(v: SettleVerdict, code: C) =>
  v.kind === "settled"
    ? undefined
    : (v.reasons.find((r) => r.code === code) as Extract<GateReason, { code: C }> | undefined);

describe("evaluateSettle: graceful follower bounce", () => {
  const baseline = baselineFor("worker-3");
  const held = () => heldAfterGracefulStop(cluster());

  it("reports the tasks held by the scheduled delay with the remaining time, not slowness", () => {
    const now = DEADLINE - 130_000;
    const verdict = verdictOn(baseline, pollsAt([now - 20_000, now - 10_000, now], held));
    expect(verdict.kind).toBe("waiting");
    const r = reason(verdict, "held-by-scheduled-delay");
    expect(r?.message).toBe("3 tasks of worker-3 held by the scheduled delay: 2m10s left");
    expect(r?.remainingMs).toBe(130_000);
    expect(r?.heldTasks).toEqual(["orders/2", "orders/5", "clicks/2"]);
    expect(codes(verdict)).not.toContain("gate-slow");
    expect(codes(verdict)).not.toContain("tasks-not-running");
    expect(codes(verdict)).not.toContain("worker-idle");
    expect(codes(verdict)).not.toContain("assignment-incomplete");
  });

  it("a task left a stale RUNNING by the graceful stop counts as held through the worker's rejoin (0 assigned), and the data-flow check agrees", () => {
    const now = DEADLINE - 60_000;
    const rejoined = () =>
      held()
        .withConnector("orders", (c) => c.task(5, "RUNNING", "worker-3"))
        .withWorker("worker-3", (w) => w.assignedTasks(0).metrics({ taskFlow: {} }));
    const flowing = {
      ...baseline,
      flow: { flowing: ["orders/2", "orders/5", "clicks/2"], idle: [], errors: {}, lag: {} },
    };
    const track = { since: STOP_AT - 60_000, visible: true, tasks: {} };
    const verdict = evaluateSettle({
      baseline: flowing,
      polls: pollsAt([now - 10_000, now], rejoined),
      policy: {},
      now,
      flow: track,
    });
    expect(reason(verdict, "held-by-scheduled-delay")?.heldTasks).toEqual([
      "orders/2",
      "orders/5",
      "clicks/2",
    ]);
    expect(codes(verdict)).not.toContain("data-not-flowing");
    expect(codes(verdict)).not.toContain("stale-running");
  });

  it("while the worker is still down, says so as well", () => {
    const now = STOP_AT + 20_000;
    const down = () => held().withWorker("worker-3", (w) => w.unreachable());
    const verdict = verdictOn(baseline, pollsAt([now], down));
    expect(codes(verdict)).toEqual(expect.arrayContaining(["held-by-scheduled-delay", "worker-down"]));
  });

  it("settles after the deadline once N identical polls are seen", () => {
    const t = DEADLINE + 20_000;
    const back = () => cluster();
    const two = verdictOn(baseline, pollsAt([t, t + 5_000], back));
    expect(codes(two)).toEqual(["assignment-unstable"]);
    expect(reason(two, "assignment-unstable")).toMatchObject({ stablePolls: 2, needed: 3 });
    const three = verdictOn(baseline, [
      ...pollsAt([DEADLINE - 5_000], held),
      ...pollsAt([t, t + 5_000, t + 10_000], back),
    ]);
    expect(three).toEqual({ kind: "settled" });
  });

  it("one different poll resets the count", () => {
    const t = DEADLINE + 20_000;
    const back = () => cluster();
    const moved = () => cluster().withConnector("orders", (c) => c.task(0, "RUNNING", "worker-2"));
    const polls = [
      ...pollsAt([t, t + 5_000], back),
      ...pollsAt([t + 10_000], moved),
      ...pollsAt([t + 15_000, t + 20_000], back),
    ];
    const verdict = verdictOn(baseline, polls);
    expect(reason(verdict, "assignment-unstable")).toMatchObject({ stablePolls: 2 });
    const settled = verdictOn(baseline, [...polls, ...pollsAt([t + 25_000], back)]);
    expect(settled.kind).toBe("settled");
  });

  it("becomes slow only past expectedSettleMs beyond the deadline", () => {
    const late = DEADLINE + 150_000;
    const verdict = verdictOn(baseline, pollsAt([late - 10_000, late], held), { expectedSettleMs: 120_000 });
    expect(reason(verdict, "held-by-scheduled-delay")?.message).toBe(
      "3 tasks of worker-3 held by the scheduled delay: deadline passed 2m30s ago",
    );
    expect(reason(verdict, "gate-slow")?.overdueMs).toBe(30_000);
  });
});

describe("evaluateSettle: crash", () => {
  const baseline = baselineFor("worker-3", { stopMode: "crash" });
  /** worker-3 is back on 3.7.1 but empty; its tasks still claim a stale RUNNING with its id. */
  const staleAfterCrash = () => cluster();
  const empty = () => staleAfterCrash().withWorker("worker-3", (w) => w.assignedTasks(0));

  it("the deadline includes the session timeout", () => {
    expect(baseline.delayDeadline).toBe(DEADLINE + 10_000);
  });

  it("stale RUNNING tasks of the empty worker do not pass, even over N identical polls", () => {
    const now = STOP_AT + 100_000;
    const verdict = verdictOn(baseline, pollsAt([now - 10_000, now - 5_000, now], empty));
    expect(verdict.kind).toBe("waiting");
    expect(reason(verdict, "held-by-scheduled-delay")?.heldTasks).toHaveLength(3);
    expect(reason(verdict, "held-by-scheduled-delay")?.remainingMs).toBe(DEADLINE + 10_000 - now);
  });

  it("stale RUNNING tasks of a dead worker do not pass", () => {
    const now = STOP_AT + 100_000;
    const dead = () => staleAfterCrash().withWorker("worker-3", (w) => w.unreachable());
    const verdict = verdictOn(baseline, pollsAt([now - 10_000, now - 5_000, now], dead));
    expect(verdict.kind).toBe("waiting");
    expect(codes(verdict)).toEqual(expect.arrayContaining(["worker-down", "held-by-scheduled-delay"]));
  });

  it("without metrics a dead worker's stale RUNNING still does not count", () => {
    const now = STOP_AT + 100_000;
    const dead = () =>
      staleAfterCrash()
        .withWorkers(3, (w) => w.noMetrics())
        .withWorker("worker-3", (w) => w.unreachable());
    const verdict = verdictOn(baseline, pollsAt([now - 10_000, now - 5_000, now], dead));
    expect(verdict.kind).toBe("waiting");
  });
});

describe("evaluateSettle: leader step", () => {
  it("has no delay deadline, so unassigned tasks are not 'held'", () => {
    const baseline = baselineFor("worker-1");
    expect(baseline.isLeader).toBe(true);
    expect(baseline.delayDeadline).toBeNull();
    const now = STOP_AT + 30_000;
    const state = () => cluster().withEachConnector((c) => c.moveTasks("worker-1", "worker-1", "UNASSIGNED"));
    const verdict = verdictOn(baseline, pollsAt([now], state));
    expect(codes(verdict)).toContain("tasks-not-running");
    expect(codes(verdict)).not.toContain("held-by-scheduled-delay");
  });
});
