import { describe, expect, it } from "vitest";
import { assessFlow, growingLag, lagPeaks, learnBaselineFlow } from "../../../src/core/settle/assess-flow.js";
import { EMPTY_FLOW_TRACK, type FlowTrack, trackFlow } from "../../../src/core/settle/track-flow.js";
import type { ClusterSnapshot } from "../../../src/core/snapshot.js";
import { aCluster, type ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";

/** Two workers; orders/0 on worker-1 (a source), orders-sink/0 on worker-2 (a sink). */
function cluster(): ClusterSnapshotBuilder {
  return aCluster()
    .withWorkers(2)
    .leader("worker-1")
    .withConnector("orders", (c) => c.source().task(0, "RUNNING", "worker-1"))
    .withConnector("orders-sink", (c) => c.sink().task(0, "RUNNING", "worker-2"));
}

function fold(snapshots: readonly ClusterSnapshot[]) {
  let track: FlowTrack = EMPTY_FLOW_TRACK;
  const gaps = [];
  for (const s of snapshots) {
    const r = trackFlow(track, s);
    track = r.track;
    gaps.push(...r.gaps);
  }
  return { track, gaps };
}

const source = (b: ClusterSnapshotBuilder, at: number, records: number | null, worker = "worker-1") => {
  const c = b.copy().at(at);
  if (records === null) return c.withWorker(worker, (w) => w.withoutFlow("orders/0"));
  return c.withWorker(worker, (w) => w.flow("orders/0", records));
};

describe("trackFlow", () => {
  it("measures a restarted task's gap from midway to the reading that found it stopped, to when its new instance began writing at its old rate", () => {
    const b = cluster();
    const { track, gaps } = fold([
      source(b, 1_000, 100).build(),
      source(b, 2_000, 110).build(),
      // worker-1 restarts: unreachable, then back with the task's counter from zero.
      source(b, 3_000, 110)
        .withWorker("worker-1", (w) => w.unreachable())
        .build(),
      source(b, 20_000, 0).build(),
      source(b, 21_000, 8).build(),
      source(b, 22_000, 18).build(),
    ]);
    // Stopped midway between 2 s and 3 s; 8 records at its 10/s rate: it began writing at 20.2 s.
    expect(gaps).toEqual([{ task: "orders/0", worker: "worker-1:8083", gapMs: 17_700 }]);
    expect(track.tasks["orders/0"]).toMatchObject({
      moved: true,
      startedAt: 20_000,
      movedAt: 22_000,
      gap: null,
    });
  });

  it("knows a new instance on another worker, and one whose counter went down, as a restart", () => {
    const b = cluster();
    const moved = fold([
      source(b, 1_000, 100).build(),
      source(b, 2_000, 110).build(),
      source(b, 9_000, 30, "worker-2")
        .withConnector("orders", (c) => c.task(0, "RUNNING", "worker-2"))
        .withWorker("worker-1", (w) => w.withoutFlow("orders/0"))
        .build(),
    ]);
    // Seen stopped only at 9 s (midway: 5.5 s); 30 records at 10/s: it began writing at 6 s.
    expect(moved.gaps).toEqual([{ task: "orders/0", worker: "worker-1:8083", gapMs: 500 }]);
    const reset = fold([
      source(b, 1_000, 100).build(),
      source(b, 2_000, 110).build(),
      source(b, 3_000, 4).build(),
    ]);
    expect(reset.track.tasks["orders/0"]).toMatchObject({ startedAt: 3_000, moved: true });
    expect(reset.gaps).toEqual([{ task: "orders/0", worker: "worker-1:8083", gapMs: 100 }]);
  });

  it("keeps what it knew when a live worker's scrape fails, and is not visible without per-task series", () => {
    const b = cluster();
    const { track } = fold([
      source(b, 1_000, 100).build(),
      source(b, 2_000, 110).build(),
      b
        .copy()
        .at(3_000)
        .withWorker("worker-1", (w) => w.noMetrics())
        .build(),
    ]);
    expect(track.tasks["orders/0"]).toMatchObject({ worker: "worker-1:8083", records: 110, movedAt: 2_000 });
    expect(fold([cluster().at(1_000).build()]).track).toEqual({ since: 1_000, visible: false, tasks: {} });
  });

  it("tells a sink with nothing to read (lag 0, fetching) from a stuck one (lag frozen, no fetches)", () => {
    const b = cluster();
    const sink = (at: number, records: number, lag: number, fetches: number) =>
      b
        .copy()
        .at(at)
        .withWorker("worker-2", (w) => w.flow("orders-sink/0", records, { kind: "sink", lag, fetches }))
        .build();
    const idle = fold([sink(1_000, 50, 0, 10), sink(2_000, 50, 0, 12)]).track.tasks["orders-sink/0"];
    expect(idle).toMatchObject({ moved: true, progressAt: 2_000, movedAt: null });
    const stuck = fold([sink(1_000, 50, 0, 10), sink(2_000, 50, 0, 10)]).track.tasks["orders-sink/0"];
    expect(stuck).toMatchObject({ moved: false, progressAt: null });
    const catchingUp = fold([sink(1_000, 50, 900, 10), sink(2_000, 50, 400, 11)]).track.tasks[
      "orders-sink/0"
    ];
    expect(catchingUp).toMatchObject({ moved: true, lagDelta: -500 });
  });

  it("adds the record failures of every instance", () => {
    const b = cluster();
    const failing = (at: number, records: number, failures: number) =>
      b
        .copy()
        .at(at)
        .withWorker("worker-1", (w) => w.flow("orders/0", records, { failures }))
        .build();
    const { track } = fold([failing(1_000, 10, 2), failing(2_000, 20, 5), failing(3_000, 1, 1)]);
    expect(track.tasks["orders/0"]?.errors).toBe(4);
  });
});

describe("learnBaselineFlow and assessFlow", () => {
  const b = cluster();
  const reads = (...points: [number, number][]) =>
    fold(points.map(([at, n]) => source(b, at, n).build())).track;

  it("learns for a whole window, then tells flowing tasks from idle ones", () => {
    expect(learnBaselineFlow(EMPTY_FLOW_TRACK, 0, 10_000)).toEqual({ kind: "unseen" });
    expect(learnBaselineFlow(reads([1_000, 5]), 4_000, 10_000)).toEqual({
      kind: "learning",
      remainingMs: 7_000,
    });
    const learned = learnBaselineFlow(reads([1_000, 5], [6_000, 9], [12_000, 9]), 12_000, 10_000);
    expect(learned).toMatchObject({ kind: "learned", flow: { flowing: ["orders/0"], idle: [] } });
    const idle = learnBaselineFlow(reads([1_000, 5], [12_000, 5]), 12_000, 10_000);
    expect(idle).toMatchObject({ kind: "learned", flow: { flowing: [], idle: ["orders/0"] } });
  });

  it("never calls a sink task idle while records wait for it: one that read nothing in the window with lag above zero must flow", () => {
    const sink = (at: number, lag: number) =>
      b
        .copy()
        .at(at)
        .withWorker("worker-2", (w) => w.flow("orders-sink/0", 50, { kind: "sink", lag, fetches: 10 }))
        .build();
    const waiting = fold([sink(1_000, 400), sink(12_000, 400)]).track;
    expect(learnBaselineFlow(waiting, 12_000, 10_000)).toMatchObject({
      kind: "learned",
      flow: { flowing: ["orders-sink/0"], idle: [] },
    });
    const empty = fold([sink(1_000, 0), sink(12_000, 0)]).track;
    expect(learnBaselineFlow(empty, 12_000, 10_000)).toMatchObject({
      kind: "learned",
      flow: { flowing: [], idle: ["orders-sink/0"] },
    });
  });

  it("waits until a flowing task moves data again, calls it stalled after stallAfterMs, and fails on new record failures", () => {
    const baseline = { flowing: ["orders/0"], idle: [], errors: { "orders/0": 0 }, lag: {} };
    const restarted = reads([1_000, 100], [2_000, 110], [30_000, 0]);
    const waiting = assessFlow(baseline, restarted, new Set(), 40_000, 60_000);
    expect(waiting.reasons).toEqual([
      expect.objectContaining({
        code: "data-not-flowing",
        tasks: [{ task: "orders/0", runningForMs: 10_000 }],
      }),
    ]);
    const stalled = assessFlow(baseline, restarted, new Set(), 95_000, 60_000);
    expect(stalled.reasons).toEqual([
      expect.objectContaining({
        code: "data-stalled",
        tasks: [{ task: "orders/0", connector: "orders", lastMovedAt: 2_000, quietMs: 65_000 }],
      }),
    ]);
    expect(assessFlow(baseline, restarted, new Set(["orders/0"]), 40_000, 60_000).reasons).toEqual([]);
    const flowing = reads([1_000, 100], [2_000, 110], [30_000, 0], [31_000, 9]);
    expect(assessFlow(baseline, flowing, new Set(), 31_000, 60_000)).toEqual({ failures: [], reasons: [] });
    const failed = fold([
      source(b, 1_000, 100).build(),
      b
        .copy()
        .at(2_000)
        .withWorker("worker-1", (w) => w.flow("orders/0", 110, { failures: 3 }))
        .build(),
    ]).track;
    expect(assessFlow(baseline, failed, new Set(), 2_000, 60_000).failures).toEqual([
      expect.objectContaining({ code: "task-errors", tasks: [{ task: "orders/0", failures: 3 }] }),
    ]);
  });

  it("does not call a task flowing on its first records alone: one that wrote after its restart and then stopped waits, and is stalled after stallAfterMs", () => {
    const baseline = { flowing: ["orders/0"], idle: [], errors: { "orders/0": 0 }, lag: {} };
    const stopped = reads([1_000, 100], [2_000, 110], [30_000, 0], [31_000, 4], [32_000, 4], [33_000, 4]);
    expect(assessFlow(baseline, stopped, new Set(), 33_000, 60_000).reasons).toEqual([
      expect.objectContaining({
        code: "data-not-flowing",
        tasks: [{ task: "orders/0", runningForMs: 3_000, quietMs: 2_000 }],
      }),
    ]);
    const later = reads([1_000, 100], [2_000, 110], [30_000, 0], [31_000, 4], [92_000, 4]);
    expect(assessFlow(baseline, later, new Set(), 92_000, 60_000).reasons).toEqual([
      expect.objectContaining({
        code: "data-stalled",
        tasks: [{ task: "orders/0", connector: "orders", lastMovedAt: 31_000, quietMs: 61_000 }],
      }),
    ]);
    const moving = reads([1_000, 100], [2_000, 110], [30_000, 0], [31_000, 4], [32_000, 9]);
    expect(assessFlow(baseline, moving, new Set(), 32_000, 60_000).reasons).toEqual([]);
  });

  it("lists sink tasks whose lag grew since the baseline, with its trend", () => {
    const sink = (at: number, lag: number) =>
      b
        .copy()
        .at(at)
        .withWorker("worker-2", (w) => w.flow("orders-sink/0", 10, { kind: "sink", lag, fetches: at }))
        .build();
    const track = fold([sink(1_000, 12_000), sink(2_000, 12_400)]).track;
    expect(growingLag({ flowing: [], idle: [], errors: {}, lag: { "orders-sink/0": 100 } }, track)).toEqual([
      { task: "orders-sink/0", lag: 12_400, peak: 12_400, trend: "rising" },
    ]);
  });

  it("keeps a sink's highest lag of the step, so a lag that grew and came back down is still told", () => {
    const sink = (at: number, lag: number) =>
      b
        .copy()
        .at(at)
        .withWorker("worker-2", (w) => w.flow("orders-sink/0", 10 + at, { kind: "sink", lag, fetches: at }))
        .build();
    const baseline = { flowing: [], idle: [], errors: {}, lag: { "orders-sink/0": 100 } };
    let peaks: Record<string, number> = {};
    for (const at of [1_000, 2_000, 3_000]) {
      const lag = at === 2_000 ? 1_840 : at === 1_000 ? 600 : 0;
      const track = fold([sink(at - 500, lag), sink(at, lag)]).track;
      peaks = lagPeaks(baseline, track, peaks) ?? peaks;
    }
    expect(peaks).toEqual({ "orders-sink/0": 1_840 });
    const now = fold([sink(2_000, 1_840), sink(3_000, 0)]).track;
    expect(lagPeaks(baseline, now, peaks)).toBeNull();
    expect(growingLag(baseline, now, peaks)).toEqual([
      { task: "orders-sink/0", lag: 0, peak: 1_840, trend: "falling" },
    ]);
    expect(growingLag(baseline, now)).toEqual([]);
  });
});
