import type { ResolvedPlanPolicy } from "./plan-types.js";
import { windowTiming } from "./window-timing.js";

/**
 * Learning the restart: the windows of pace `window` are sized from the expected restart, and a declared value that is
 * off (a restart twice as fast as declared forms no window at all) wastes the delay. Each measured restart (restart
 * issued → the worker answers on the target and has joined) refines it: the upper median of what was measured (one
 * outlier among three is ignored; of two, the slower counts), never below a quarter of the declared value (a restart
 * that fast is more likely one that did not happen than a fast one).
 */
export const LEARNED_FLOOR_SHARE = 0.25;

/** Re-planning is worth it when the learned value differs from the one in use by this much (and 10 % of it). */
export const LEARN_MIN_CHANGE_MS = 1_000;

export function learnedRestartMs(measuredMs: readonly number[], declaredMs: number): number | null {
  const valid = measuredMs.filter((m) => Number.isFinite(m) && m > 0);
  if (valid.length === 0) return null;
  const sorted = [...valid].sort((a, b) => a - b);
  const upperMedian = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return Math.round(Math.max(upperMedian, declaredMs * LEARNED_FLOOR_SHARE));
}

/** Whether `learnedMs` differs enough from `currentMs` to plan the remaining windows again. */
export function worthReplanning(currentMs: number, learnedMs: number): boolean {
  return Math.abs(learnedMs - currentMs) >= Math.max(LEARN_MIN_CHANGE_MS, currentMs * 0.1);
}

/** The policy with the learned restart, and the followers per window before and after. */
export function withLearnedRestart(
  policy: ResolvedPlanPolicy,
  learnedMs: number,
  delayMs: number,
): {
  readonly policy: ResolvedPlanPolicy;
  readonly followersBefore: number;
  readonly followersAfter: number;
} {
  const next = { ...policy, expectedRestartMs: learnedMs };
  return {
    policy: next,
    followersBefore: windowTiming(policy, delayMs).followersPerWindow,
    followersAfter: windowTiming(next, delayMs).followersPerWindow,
  };
}
