import type { ResolvedPlanPolicy } from "./plan-types.js";

/**
 * The time bound of pace `window`, one set of numbers for the plan and the engine. A window opens when its first
 * follower stops (the deadline is `delayMs` later); each next follower stops once the previous one is back, about
 * `stepMs` (restart + probe interval) later; the last one must be back `marginMs` before the deadline, the margin
 * being the restart's jitter plus a floor. So a window holds k* = 1 + ⌊(D − r̂ − m)/s⌋ followers.
 */
export interface WindowTiming {
  readonly delayMs: number;
  /** Expected restart (r̂). */
  readonly restartMs: number;
  /** restartJitter × r̂ + windowMarginFloorMs. */
  readonly marginMs: number;
  /** One follower's turn inside a window: its restart plus, at most, one probe interval to see it back. */
  readonly stepMs: number;
  /** k*: followers per window (0 when not even one restart fits before the deadline). */
  readonly followersPerWindow: number;
}

export function windowTiming(
  p: Pick<
    ResolvedPlanPolicy,
    "expectedRestartMs" | "restartJitter" | "windowMarginFloorMs" | "windowProbeIntervalMs"
  >,
  delayMs: number,
): WindowTiming {
  const restartMs = p.expectedRestartMs;
  const marginMs = Math.round(p.restartJitter * restartMs) + p.windowMarginFloorMs;
  const stepMs = restartMs + p.windowProbeIntervalMs;
  const room = delayMs - restartMs - marginMs;
  const followersPerWindow = room < 0 || stepMs <= 0 ? 0 : 1 + Math.floor(room / stepMs);
  return { delayMs, restartMs, marginMs, stepMs, followersPerWindow };
}

/** Whether a follower that stops at `now` is back `marginMs` before the window's `deadline` (engine side of k*). */
export function fitsBeforeDeadline(timing: WindowTiming, now: number, deadline: number): boolean {
  return now + timing.restartMs + timing.marginMs <= deadline;
}
