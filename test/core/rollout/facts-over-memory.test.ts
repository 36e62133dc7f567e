import { describe, expect, it } from "vitest";
import { startDriver } from "./rollout-driver.js";
import { cluster, RESTART } from "./rollout-fixtures.js";

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
