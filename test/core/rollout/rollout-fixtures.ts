import type { RolloutTarget } from "../../../src/core/plan/plan-types.js";
import { aCluster, type ClusterSnapshotBuilder } from "../../support/cluster-snapshot-builder.js";
import type { TestSettings } from "../../support/rollout-settings.js";

export const FROM = "3.6.1";
export const TO = "3.7.1";
export const UPGRADE: RolloutTarget = { kind: "upgrade", version: TO, argument: `v${TO}` };
export const RESTART: RolloutTarget = { kind: "restart", version: FROM, argument: "restart" };

/**
 * Polls every 10 s, a 60 s scheduled delay, 20 s expected restarts; the gate wants 2 identical polls and calls a
 * step slow 60 s after the delay deadline (after the stop for the leader).
 */
export const SETTINGS: TestSettings = {
  planPolicy: { connectProtocol: null, scheduledRebalanceMaxDelayMs: 60_000, expectedRestartMs: 20_000 },
  gatePolicy: { consecutivePolls: 2, quietPeriodMs: 10_000, expectedSettleMs: 60_000 },
  pollIntervalMs: 10_000,
  delayMs: 60_000,
  sessionTimeoutMs: 10_000,
  expectedRestartMs: 20_000,
  workerReturnMs: 120_000,
};

export const WORKERS = ["worker-1", "worker-2", "worker-3"] as const;

/**
 * Three workers on 3.6.1 (those in `upgraded` on 3.7.1), worker-3 leads and runs both connector instances;
 * 9 tasks, 3 per worker: orders/0..5 and clicks/0..2 dealt round-robin.
 */
export function cluster(...upgraded: readonly string[]): ClusterSnapshotBuilder {
  const b = aCluster("prod")
    .withWorkers(3, (w) => w.version(FROM))
    .leader("worker-3")
    .withConnector("orders", (c) => c.on("worker-3").tasks(6, "RUNNING", WORKERS))
    .withConnector("clicks", (c) => c.sink().on("worker-3").tasks(3, "RUNNING", WORKERS));
  for (const name of upgraded) b.withWorker(name, (w) => w.version(TO));
  return b;
}

/**
 * `name` stopped gracefully: unreachable, its tasks UNASSIGNED with its worker id
 * (docs/connect-behaviour.md#unassigned-after-a-graceful-stop).
 */
export function down(b: ClusterSnapshotBuilder, name: string): ClusterSnapshotBuilder {
  return b
    .withWorker(name, (w) => w.unreachable())
    .withEachConnector((c) => c.moveTasks(name, name, "UNASSIGNED"));
}

/** `name` answers again on the target version, its tasks still held by the scheduled delay. */
export function backHeld(b: ClusterSnapshotBuilder, name: string): ClusterSnapshotBuilder {
  return b
    .withWorker(name, (w) => w.reachable().version(TO))
    .withEachConnector((c) => c.moveTasks(name, name, "UNASSIGNED"));
}

/** Every worker reports group epoch `n`. */
export function epoch(b: ClusterSnapshotBuilder, n: number): ClusterSnapshotBuilder {
  return b.withWorkers(WORKERS.length, (w) => w.epoch(n));
}
