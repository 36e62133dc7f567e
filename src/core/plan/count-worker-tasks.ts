import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";

/** Tasks a worker holds: `assigned-tasks` from metrics when known, else tasks whose status names it (not UNASSIGNED). */
export function countWorkerTasks(snapshot: ClusterSnapshot, worker: WorkerSnapshot): number {
  const assigned = worker.metrics?.assignedTasks;
  if (assigned !== null && assigned !== undefined) return assigned;
  let n = 0;
  for (const c of snapshot.connectors ?? []) {
    for (const t of c.tasks) if (t.workerId === worker.workerId && t.state !== "UNASSIGNED") n += 1;
  }
  return n;
}

/** Configured tasks of connectors that are not STOPPED (a STOPPED connector has no tasks assigned). */
export function countConfiguredTasks(snapshot: ClusterSnapshot): number {
  let n = 0;
  for (const c of snapshot.connectors ?? []) if (c.state !== "STOPPED") n += c.taskCount;
  return n;
}
