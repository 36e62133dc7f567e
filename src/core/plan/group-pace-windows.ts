import type { PaceWindow } from "./plan-types.js";
import type { WindowTiming } from "./window-timing.js";

export interface WindowCandidate {
  readonly step: number;
  /** Only followers whose tasks are held by the delay (restart fits, group not eager) may share a window. */
  readonly windowable: boolean;
  readonly tasks: number;
  /** The group leader, planned last: it may close the last window (its bounce hands the held tasks out at once). */
  readonly isLeader?: boolean;
  /** The leader's step may close a window (not eager, a delay to shorten, `leaderClosesLastWindow`). */
  readonly mayClose?: boolean;
}

export interface WindowBounds {
  readonly totalTasks: number;
  /** The deadline bound of `windowTiming`: followers per window, timings. */
  readonly timing: WindowTiming;
  /** Largest share of all tasks held at once; 1 (the default) never binds. */
  readonly maxHeldShare: number;
}

/**
 * Pace `window`: consecutive followers restarted inside one delay window, each once the previous
 * has rejoined, filled greedily up to k* followers (`windowTiming`: the last of them is back `marginMs` before the
 * deadline) and, when set, up to the held-share cap. The leader, when `mayClose`, closes the window of the followers
 * just before it (or forms one with the last follower): it is restarted once they are back, and the new leader hands
 * every held task out at once instead of at the deadline. Only groups of two or more steps are returned.
 */
export function groupPaceWindows(candidates: readonly WindowCandidate[], bounds: WindowBounds): PaceWindow[] {
  const { timing } = bounds;
  const windows: PaceWindow[] = [];
  let group: WindowCandidate[] = [];
  const flush = (leader: WindowCandidate | null) => {
    const members = leader ? [...group, leader] : group;
    if (members.length >= 2) {
      const followers = group.length;
      windows.push({
        steps: members.map((c) => c.step),
        predictedHeldShare: heldShare(group, bounds.totalTasks),
        predictedDeadlineMs: leader ? followers * timing.stepMs : timing.delayMs,
        closedByLeader: leader !== null,
      });
    }
    group = [];
  };
  for (const c of candidates) {
    if (c.isLeader === true) {
      // The leader closes the followers' window just before it (its stop hands their tasks out at once).
      if (c.mayClose === true && group.length > 0) flush(c);
      else flush(null);
      continue;
    }
    if (!c.windowable || timing.followersPerWindow < 1) {
      flush(null);
      continue;
    }
    const next = [...group, c];
    const fitsTime = next.length <= timing.followersPerWindow;
    const fitsShare = heldShare(next, bounds.totalTasks) <= bounds.maxHeldShare;
    if (fitsTime && fitsShare) {
      group = next;
    } else {
      flush(null);
      group = heldShare([c], bounds.totalTasks) <= bounds.maxHeldShare ? [c] : [];
    }
  }
  flush(null);
  return windows;
}

function heldShare(group: readonly WindowCandidate[], totalTasks: number): number {
  if (totalTasks <= 0) return 0;
  return group.reduce((sum, c) => sum + c.tasks, 0) / totalTasks;
}
