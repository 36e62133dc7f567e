import { formatDuration } from "../format-duration.js";
import { plural } from "../plural.js";
import type { Baseline, GateReason, TaskStateRef } from "./settle-types.js";

export interface HeldDetection {
  readonly held: readonly string[];
  readonly reason: GateReason | null;
}

/**
 * A pending scheduled delay (docs/connect-behaviour.md#held-tasks, #task-statuses): the restarted worker's tasks are
 * UNASSIGNED with its old worker id (graceful stop) or a stale RUNNING (crash), while Σ assigned < configured (when
 * known) and no rebalance is running. Never for a step without a delay deadline (the leader, delay 0).
 */
export function detectHeldTasks(
  baseline: Baseline,
  notRunning: readonly TaskStateRef[],
  group: { readonly assigned: number | null; readonly configured: number; readonly rebalancing: boolean },
  now: number,
): HeldDetection {
  const deadline = baseline.delayDeadline;
  if (deadline === null || group.rebalancing) return { held: [], reason: null };
  if (group.assigned !== null && group.assigned >= group.configured) return { held: [], reason: null };
  const mine = new Set(baseline.workerTasks);
  const id = baseline.worker.workerId;
  const held = notRunning
    .filter((t) => mine.has(t.task))
    .filter(
      (t) =>
        (t.state === "UNASSIGNED" && (t.workerId === id || t.workerId === null)) ||
        (t.state === "RUNNING" && t.workerId === id),
    )
    .map((t) => t.task);
  if (held.length === 0) return { held: [], reason: null };
  const remainingMs = Math.max(0, deadline - now);
  const when =
    deadline > now
      ? `${formatDuration(remainingMs)} left`
      : `deadline passed ${formatDuration(now - deadline)} ago`;
  return {
    held,
    reason: {
      code: "held-by-scheduled-delay",
      worker: baseline.worker.name,
      heldTasks: held,
      remainingMs,
      message: `${plural(held.length, "task")} of ${baseline.worker.name} held by the scheduled delay: ${when}`,
    },
  };
}
