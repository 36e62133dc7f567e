import { plural } from "../core/plural.js";

/**
 * "19 task-seconds", "1 task-second", "1,240 task-seconds": a time summed over tasks (a step's task downtime, the
 * rollout's data gaps added up), which is not a wall-clock duration and so is not written as one. Rounded to the
 * nearest second.
 */
export function taskSecondsText(ms: number): string {
  return plural(Number.isFinite(ms) ? Math.max(0, Math.round(ms / 1000)) : 0, "task-second");
}
