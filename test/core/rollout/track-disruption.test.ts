import { describe, expect, it } from "vitest";
import { EMPTY_TRACK, trackDisruption } from "../../../src/core/rollout/track-disruption.js";
import type { ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import { cluster, down } from "./rollout-fixtures.js";

/** Folds `before` (read at 0) then `after` (read at 10 s); returns the second delta and track. */
const fold = (before: ClusterSnapshotBuilder, after: ClusterSnapshotBuilder) => {
  const first = trackDisruption(EMPTY_TRACK, before.at(0).build());
  return trackDisruption(first.track, after.at(10_000).build());
};
const zero = { moves: 0, downtimeMs: 0, rebalances: 0, eagerRebalances: 0 };

describe("trackDisruption", () => {
  it("the first poll only records where tasks run", () => {
    const { track, delta } = trackDisruption(EMPTY_TRACK, cluster().at(5_000).build());
    expect(delta).toEqual(zero);
    expect(track).toMatchObject({ at: 5_000, epoch: 10, down: [] });
    expect(track.lastWorker["orders/0"]).toBe("worker-1:8083");
    expect(Object.keys(track.lastWorker)).toHaveLength(9);
  });

  it.each<{
    name: string;
    before: () => ClusterSnapshotBuilder;
    after: () => ClusterSnapshotBuilder;
    delta: Partial<typeof zero>;
    down?: string[];
  }>([
    { name: "nothing changes", before: () => cluster(), after: () => cluster(), delta: {} },
    {
      name: "tasks start on another live worker: moves",
      before: () => cluster(),
      after: () => cluster().withEachConnector((c) => c.moveTasks("worker-1", "worker-2")),
      delta: { moves: 3 },
    },
    {
      name: "tasks down at the previous poll: downtime = interval × tasks",
      before: () => down(cluster(), "worker-1"),
      after: () => cluster(),
      delta: { downtimeMs: 30_000 },
    },
    {
      name: "tasks going down now cost nothing yet (poll resolution)",
      before: () => cluster(),
      after: () => down(cluster(), "worker-1"),
      delta: {},
      down: ["orders/0", "orders/3", "clicks/0"],
    },
    {
      name: "epoch increase: rebalances",
      before: () => cluster(),
      after: () => cluster().withWorkers(3, (w) => w.epoch(12)),
      delta: { rebalances: 2 },
    },
    {
      name: "epoch increase while the group runs eager: eager rebalances",
      before: () => cluster(),
      after: () => cluster().withWorkers(3, (w) => w.epoch(11).protocol("eager")),
      delta: { rebalances: 1, eagerRebalances: 1 },
    },
    {
      name: "the first rebalance after an eager generation stops the world too: one eager rebalance of two",
      before: () => cluster().withWorkers(3, (w) => w.protocol("eager")),
      after: () => cluster().withWorkers(3, (w) => w.epoch(12).protocol("sessioned")),
      delta: { rebalances: 2, eagerRebalances: 1 },
    },
    {
      name: "stale RUNNING on a worker reporting 0 assigned tasks counts as down",
      before: () => cluster(),
      after: () => cluster().withWorker("worker-1", (w) => w.assignedTasks(0)),
      delta: {},
      down: ["orders/0", "orders/3", "clicks/0"],
    },
    {
      name: "RUNNING on an unreachable worker counts as down",
      before: () => cluster(),
      after: () => cluster().withWorker("worker-2", (w) => w.unreachable()),
      delta: {},
      down: ["orders/1", "orders/4", "clicks/1"],
    },
    {
      name: "PAUSED counts as up; a STOPPED connector is ignored",
      before: () => cluster(),
      after: () =>
        cluster()
          .withConnector("orders", (c) => c.paused().moveTasks("worker-1", "worker-1", "PAUSED"))
          .withConnector("clicks", (c) => c.stopped()),
      delta: {},
    },
  ])("$name", ({ before, after, delta, down: expectedDown = [] }) => {
    const result = fold(before(), after());
    expect(result.delta).toEqual({ ...zero, ...delta });
    expect([...result.track.down].sort()).toEqual([...expectedDown].sort());
    expect(result.track.at).toBe(10_000);
  });

  it("a stale RUNNING that comes back to the same worker is downtime, not a move", () => {
    const stale = cluster().withWorker("worker-1", (w) => w.assignedTasks(0));
    const first = fold(cluster(), stale);
    const next = trackDisruption(first.track, cluster().at(20_000).build());
    expect(next.delta).toEqual({ ...zero, downtimeMs: 30_000 });
  });

  it("unreadable connectors: the track is kept and nothing is counted", () => {
    const first = trackDisruption(EMPTY_TRACK, cluster().at(0).build());
    const blind = trackDisruption(first.track, cluster().connectorsUnreadable().at(10_000).build());
    expect(blind).toEqual({ track: first.track, delta: zero });
  });
});
