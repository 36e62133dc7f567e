import { captureBaseline } from "../../../src/core/settle/capture-baseline.js";
import type { Baseline } from "../../../src/core/settle/settle-types.js";
import type { ClusterSnapshot } from "../../../src/core/snapshot.js";
import { aCluster, type ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";

export const STOP_AT = 10_000;
export const DELAY_MS = 300_000;
export const DEADLINE = STOP_AT + DELAY_MS;

/**
 * Three workers, worker-1 leads; 9 tasks, 3 per worker. Before the step every worker runs 3.6.1; the step
 * upgrades worker-3 to 3.7.1.
 */
export function cluster(version3 = "3.7.1"): ClusterSnapshotBuilder {
  return aCluster("prod")
    .withWorkers(3, (w) => w.version("3.6.1").lastRebalanceAgo(60_000))
    .withWorker("worker-3", (w) => w.version(version3))
    .leader("worker-1")
    .withConnector("orders", (c) => c.tasks(6, "RUNNING", ["worker-1", "worker-2", "worker-3"]))
    .withConnector("clicks", (c) => c.sink().tasks(3, "RUNNING", ["worker-1", "worker-2", "worker-3"]));
}

/** The worker-3 tasks waiting for the delay after a graceful stop: UNASSIGNED with worker-3's id. */
export function heldAfterGracefulStop(b: ClusterSnapshotBuilder): ClusterSnapshotBuilder {
  return b.withEachConnector((c) => c.moveTasks("worker-3", "worker-3", "UNASSIGNED"));
}

export function baselineFor(
  worker = "worker-3",
  options: { stopMode?: "graceful" | "crash"; isLeader?: boolean } = {},
): Baseline {
  const capture = captureBaseline(
    cluster("3.6.1")
      .at(STOP_AT - 1_000)
      .build(),
    {
      step: 1,
      worker,
      targetVersion: "3.7.1",
      stopIssuedAt: STOP_AT,
      delayMs: DELAY_MS,
      ...options,
    },
  );
  if (capture.kind !== "captured") throw new Error(capture.message);
  return capture.baseline;
}

/** The same state read at each of `times`. */
export function pollsAt(times: readonly number[], state: () => ClusterSnapshotBuilder): ClusterSnapshot[] {
  return times.map((t) => state().at(t).build());
}
