import { describe, expect, it } from "vitest";
import { planRollout } from "../../../src/core/plan/plan-rollout.js";
import { rollbackOf } from "../../../src/core/rollout/rollback-of.js";
import type { RolloutState, StepRecord } from "../../../src/core/rollout/rollout-state.js";
import { startDriver } from "./rollout-driver.js";
import { cluster, FROM, RESTART, SETTINGS, TO, UPGRADE } from "./rollout-fixtures.js";

/** A finished rollout of `target` whose steps are changed by `edit` (worker-1, worker-2, worker-3 in plan order). */
function finished(
  edit: (s: StepRecord) => Partial<StepRecord>,
  target = UPGRADE,
  result: "succeeded" | "aborted" | "failed" = "aborted",
): RolloutState {
  const d = startDriver({ target, now: 1_000 });
  d.read(1_000, cluster());
  const s = d.state;
  return {
    ...s,
    steps: s.steps.map((step) => ({ ...step, ...edit(step) })),
    phase: { kind: "finished", result, reason: { kind: "aborted", by: "alice" } },
  };
}

const issued = (at: Readonly<Record<string, number>>) => (s: StepRecord) =>
  at[s.worker] === undefined
    ? { status: "pending" as const, restartIssuedAt: null }
    : { status: "settled" as const, restartIssuedAt: at[s.worker] ?? null, fromVersion: FROM };

describe("rollbackOf: what rolling back a finished upgrade returns, from its record", () => {
  it("the workers whose restart it issued, newest first, back to the version they left; the rest untouched", () => {
    const plan = rollbackOf(finished(issued({ "worker-1": 10_000, "worker-2": 40_000 })));
    expect(plan).toEqual({
      kind: "rollback",
      version: FROM,
      target: { of: "job-1", from: TO, workers: ["worker-2", "worker-1"] },
    });
  });

  it("a worker the rollout found on the target already is not its move", () => {
    const plan = rollbackOf(
      finished((s) => (s.worker === "worker-1" ? { ...issued({ "worker-1": 5 })(s), fromVersion: TO } : {})),
    );
    expect(plan).toEqual({ kind: "nothing-moved", jobId: "job-1", version: TO });
  });

  it("refuses a plain restart, a rollout not over, unknown and mixed versions before", () => {
    expect(rollbackOf(finished(issued({ "worker-1": 5 }), RESTART))).toEqual({
      kind: "not-an-upgrade",
      jobId: "job-1",
    });
    const running = {
      ...finished(issued({ "worker-1": 5 })),
      phase: { kind: "before-step" as const, step: 2 },
    };
    expect(rollbackOf(running)).toEqual({ kind: "not-finished", jobId: "job-1", status: "before-step" });
    expect(
      rollbackOf(
        finished((s) => ({
          ...issued({ "worker-1": 5, "worker-2": 6 })(s),
          fromVersion: s.worker === "worker-2" ? null : FROM,
        })),
      ),
    ).toEqual({ kind: "unknown-from", jobId: "job-1", workers: ["worker-2"] });
    expect(
      rollbackOf(
        finished((s) => ({
          ...issued({ "worker-1": 5, "worker-2": 6 })(s),
          fromVersion: s.worker === "worker-2" ? "3.5.2" : FROM,
        })),
      ),
    ).toEqual({
      kind: "mixed-from",
      jobId: "job-1",
      versions: [
        { worker: "worker-2", version: "3.5.2" },
        { worker: "worker-1", version: FROM },
      ],
    });
  });
});

describe("a rollback's plan and steps", () => {
  const rollback = {
    kind: "upgrade" as const,
    version: FROM,
    argument: `v${FROM}`,
    rollback: { of: "job-1", from: TO, workers: ["worker-3", "worker-1"] },
  };

  it("plans only the moved workers, in the order given (the leader worker-3 first), the others left as they are", () => {
    const plan = planRollout(cluster("worker-1", "worker-3").build(), rollback, SETTINGS.planPolicy);
    expect(plan.steps.map((s) => s.worker)).toEqual(["worker-3", "worker-1"]);
    expect(plan.skipped).toEqual([{ worker: "worker-2", reason: "not moved by job-1: left as it is" }]);
    expect(plan.steps[0]?.reasons[0]).toBe(
      `moved to ${TO} by job-1: returned to ${FROM}, newest move first (the group leader now)`,
    );
  });

  it("restarts the leader where the rollback puts it, without moving it last", () => {
    const d = startDriver({ target: rollback, now: 1_000 });
    d.read(1_000, cluster("worker-1", "worker-3"));
    expect(d.eventsOf("step-reordered")).toEqual([]);
    expect(d.restarts.map((r) => r.worker)).toEqual(["worker-3"]);
  });
});

describe("rollbackOf after a failed canary's rollback", () => {
  it("a worker the rollout already returned is no move to undo", () => {
    const base = finished(issued({ "worker-1": 10_000 }), UPGRADE, "failed");
    const back = { ...base.steps[0], step: 4, toVersion: FROM, restartIssuedAt: 90_000 } as StepRecord;
    expect(rollbackOf({ ...base, steps: [...base.steps, back] })).toEqual({
      kind: "nothing-moved",
      jobId: "job-1",
      version: TO,
    });
  });
});
