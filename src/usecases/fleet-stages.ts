import type { FleetConfig } from "../config/schema.js";
import { tasksNotSettledAtEnd } from "../core/rollout/closing-check.js";
import type { ClusterSnapshot } from "../core/snapshot.js";

/**
 * What a fleet rollout decides between its clusters' rollouts: which stages a person approves before they start,
 * and whether a finished stage's clusters kept their data flowing through the soak.
 */

/** A stage (from 0) needs a person's approval before it starts. */
export function stageNeedsApproval(fleet: FleetConfig, stage: number): boolean {
  switch (fleet.approvals) {
    case "none":
      return false;
    case "every-stage":
      return true;
    case "after-first":
      return stage > 0;
  }
}

/** Each task's records counter in a read, by task key (summed over the workers that export it). */
export function recordCounters(snapshot: ClusterSnapshot): Map<string, number> {
  const counters = new Map<string, number>();
  for (const w of snapshot.workers) {
    if (!w.reachable) continue;
    for (const [task, r] of Object.entries(w.metrics?.taskFlow ?? {}))
      counters.set(task, (counters.get(task) ?? 0) + r.records);
  }
  return counters;
}

/** The tasks whose counter advanced from `before` to `after` (a counter that went back restarted: it moved). */
export function tasksThatMoved(before: ClusterSnapshot, after: ClusterSnapshot): Set<string> {
  const start = recordCounters(before);
  const moved = new Set<string>();
  for (const [task, records] of recordCounters(after)) {
    const was = start.get(task);
    if (was !== undefined && records !== was) moved.add(task);
  }
  return moved;
}

/**
 * Why a stage's cluster did not keep its data flowing through the soak, one line each (empty: it did): a task not
 * running on a live worker at the end, or a task that moved data when the soak began and moved none at its end
 * (each judged over two reads a flow window apart).
 */
export function soakProblems(
  begin: readonly [ClusterSnapshot, ClusterSnapshot],
  end: readonly [ClusterSnapshot, ClusterSnapshot],
): string[] {
  const problems: string[] = [];
  const down = tasksNotSettledAtEnd(end[1]);
  if (down.length > 0)
    problems.push(
      `${down.length === 1 ? "1 task is" : `${down.length} tasks are`} not running on a live worker: ${down
        .slice(0, 5)
        .map((t) => `${t.task} ${t.state}`)
        .join(", ")}`,
    );
  const flowingThen = tasksThatMoved(begin[0], begin[1]);
  const flowingNow = tasksThatMoved(end[0], end[1]);
  const stopped = [...flowingThen].filter((t) => !flowingNow.has(t)).sort();
  if (stopped.length > 0)
    problems.push(
      `${stopped.length === 1 ? "1 task" : `${stopped.length} tasks`} moved data when the soak began and none at its end: ${stopped.slice(0, 5).join(", ")}`,
    );
  return problems;
}
