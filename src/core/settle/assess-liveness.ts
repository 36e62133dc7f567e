import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";
import type { Baseline } from "./settle-types.js";

export interface StaleClaim {
  readonly worker: WorkerSnapshot;
  /** RUNNING statuses naming the worker. */
  readonly claimed: number;
  /** What the worker's metrics say it holds. */
  readonly assigned: number;
}

export interface Liveness {
  /** Worker ids whose RUNNING statuses can be believed. */
  readonly verified: ReadonlySet<string>;
  readonly known: ReadonlySet<string>;
  /**
   * Workers with more RUNNING statuses than assigned tasks: those statuses may be stale
   * (docs/connect-behaviour.md#stale-running-after-a-crash).
   */
  readonly stale: readonly StaleClaim[];
  readonly restartedBack: boolean;
}

/**
 * Which workers' RUNNING statuses count: reachable, back (the restarted worker: reporting a version and not
 * starting), and not claiming more RUNNING tasks than their `assigned-tasks` metric.
 */
export function assessLiveness(poll: ClusterSnapshot, baseline: Baseline): Liveness {
  const claims = new Map<string, number>();
  for (const c of poll.connectors ?? []) {
    for (const t of c.tasks) {
      if (t.state === "RUNNING" && t.workerId !== null)
        claims.set(t.workerId, (claims.get(t.workerId) ?? 0) + 1);
    }
  }
  const verified = new Set<string>();
  const stale: StaleClaim[] = [];
  let restartedBack = false;
  for (const w of poll.workers) {
    const isRestarted = w.workerId === baseline.worker.workerId;
    const back = w.reachable && (!isRestarted || (w.version !== null && w.health !== "starting"));
    if (isRestarted) restartedBack = back;
    const claimed = claims.get(w.workerId) ?? 0;
    const assigned = w.metrics?.assignedTasks ?? null;
    if (back && assigned !== null && claimed > assigned) stale.push({ worker: w, claimed, assigned });
    else if (back) verified.add(w.workerId);
  }
  return { verified, known: new Set(poll.workers.map((w) => w.workerId)), stale, restartedBack };
}
