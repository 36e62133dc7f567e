import type { TaskStateRef } from "../settle/settle-types.js";
import { type ClusterSnapshot, taskKey } from "../snapshot.js";
import { liveWorkerIds } from "./track-disruption.js";

/**
 * The tasks that keep a rollout with no step left from being called succeeded: not started (UNASSIGNED,
 * RESTARTING, UNKNOWN) or RUNNING only on a worker that is not live (gone, or a stale status its metrics deny).
 * Every gate of this run may have passed, or none ran: a rerun after a lost checkpoint finds every worker restarted
 * already and skips them all, while the last restart's tasks are still held by the scheduled delay. FAILED and
 * PAUSED tasks, and the tasks of a STOPPED connector, are settled: a task that failed during a step failed its gate,
 * and one that was broken before the rollout is the plan's finding, not this check's.
 */
export function tasksNotSettledAtEnd(snapshot: ClusterSnapshot): TaskStateRef[] {
  if (snapshot.connectors === null) return [];
  const live = liveWorkerIds(snapshot);
  const unsettled: TaskStateRef[] = [];
  for (const connector of snapshot.connectors) {
    if (connector.state === "STOPPED") continue;
    for (const task of connector.tasks) {
      if (task.state === "FAILED" || task.state === "PAUSED") continue;
      if (task.state === "RUNNING" && task.workerId !== null && live.has(task.workerId)) continue;
      unsettled.push({ task: taskKey(connector.name, task.id), state: task.state, workerId: task.workerId });
    }
  }
  return unsettled;
}
