import { resolveLeader } from "../plan/resolve-leader.js";
import { type ClusterSnapshot, taskKey } from "../snapshot.js";
import type { Baseline, BaselineFlow, StopMode } from "./settle-types.js";

export interface BaselineStep {
  readonly step: number;
  /** Worker name as configured. */
  readonly worker: string;
  readonly targetVersion: string;
  readonly stopIssuedAt: number;
  readonly stopMode?: StopMode;
  /** The scheduled rebalance delay that applies (the leader's). */
  readonly delayMs: number;
  /** Default 10000. */
  readonly sessionTimeoutMs?: number;
  /** Deadline of a delay window already open when the worker stops (pace `window`). */
  readonly openWindowDeadline?: number | null;
  /** Default: whether `leader-name` in the snapshot points at the worker. */
  readonly isLeader?: boolean;
  /** The tasks' data flow before the step (`learnBaselineFlow`); default null: statuses only. */
  readonly flow?: BaselineFlow | null;
}

export type BaselineCapture =
  | { readonly kind: "captured"; readonly baseline: Baseline }
  | { readonly kind: "worker-not-found"; readonly message: string };

/** The gate's reference point, from the snapshot read just before the step's stop was issued. */
export function captureBaseline(snapshot: ClusterSnapshot, step: BaselineStep): BaselineCapture {
  const worker = snapshot.workers.find((w) => w.name === step.worker);
  if (!worker) {
    return { kind: "worker-not-found", message: `${step.worker} is not a worker of ${snapshot.cluster}` };
  }
  const leader = resolveLeader(snapshot);
  const isLeader = step.isLeader ?? (leader.kind === "known" && leader.worker === worker.name);
  const workerTasks = (snapshot.connectors ?? []).flatMap((c) =>
    c.tasks
      .filter((t) => t.workerId === worker.workerId && t.state !== "UNASSIGNED")
      .map((t) => taskKey(c.name, t.id)),
  );
  const ownsConnector = (snapshot.connectors ?? []).some(
    (c) => c.workerId === worker.workerId && c.state !== "STOPPED",
  );
  const assigned = (worker.metrics?.assignedTasks ?? 0) + (worker.metrics?.assignedConnectors ?? 0);
  const stopMode = step.stopMode ?? "graceful";
  return {
    kind: "captured",
    baseline: {
      snapshot,
      step: step.step,
      worker: { name: worker.name, workerId: worker.workerId, url: worker.url },
      targetVersion: step.targetVersion,
      stopIssuedAt: step.stopIssuedAt,
      stopMode,
      isLeader,
      heldWork: workerTasks.length > 0 || ownsConnector || assigned > 0,
      workerTasks,
      delayDeadline: isLeader || step.delayMs <= 0 ? null : deadlineOf(step, stopMode),
      flow: step.flow ?? null,
    },
  };
}

function deadlineOf(step: BaselineStep, stopMode: StopMode): number {
  const detectedAt = step.stopIssuedAt + (stopMode === "crash" ? (step.sessionTimeoutMs ?? 10_000) : 0);
  const open = step.openWindowDeadline ?? null;
  return open !== null && open > detectedAt ? open : detectedAt + step.delayMs;
}
