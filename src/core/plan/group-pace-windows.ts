import type { PaceWindow } from "./plan-types.js";

export interface WindowCandidate {
  readonly step: number;
  /** Only followers whose tasks are held by the delay (restart fits, group not eager) may share a window. */
  readonly windowable: boolean;
  readonly tasks: number;
}

export interface WindowBounds {
  readonly totalTasks: number;
  readonly delayMs: number;
  readonly restartMs: number;
  readonly marginMs: number;
  readonly maxHeldShare: number;
}

/**
 * Pace `window` (CONNECT-FACTS §1.5): consecutive followers restarted inside one delay window, each once the previous
 * has rejoined. Bounds: held share ≤ `maxHeldShare`, and k restarts end before the deadline (restart × k < delay −
 * margin). Only groups of two or more steps are returned; other steps run alone.
 */
export function groupPaceWindows(candidates: readonly WindowCandidate[], bounds: WindowBounds): PaceWindow[] {
  const windows: PaceWindow[] = [];
  let group: WindowCandidate[] = [];
  const flush = () => {
    if (group.length >= 2) {
      windows.push({
        steps: group.map((c) => c.step),
        predictedHeldShare: heldShare(group, bounds.totalTasks),
        predictedDeadlineMs: bounds.delayMs,
      });
    }
    group = [];
  };
  for (const c of candidates) {
    if (!c.windowable) {
      flush();
      continue;
    }
    const next = [...group, c];
    const fitsTime = bounds.restartMs * next.length < bounds.delayMs - bounds.marginMs;
    const fitsShare = heldShare(next, bounds.totalTasks) <= bounds.maxHeldShare;
    if (fitsTime && fitsShare) {
      group = next;
    } else {
      flush();
      const alone = bounds.restartMs < bounds.delayMs - bounds.marginMs;
      group = alone && heldShare([c], bounds.totalTasks) <= bounds.maxHeldShare ? [c] : [];
    }
  }
  flush();
  return windows;
}

function heldShare(group: readonly WindowCandidate[], totalTasks: number): number {
  if (totalTasks <= 0) return 0;
  return group.reduce((sum, c) => sum + c.tasks, 0) / totalTasks;
}
