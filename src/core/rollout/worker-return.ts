import { learnedRestartMs } from "../plan/learn-restart.js";
import type { RolloutState } from "./rollout-state.js";

/**
 * How long a restarted worker may take to come back before a person is asked whether to restart it again, continue
 * without it or abort. `gate.workerReturnMs` when set; else ten times the restart time learned so far (the upper
 * median of the restarts measured in this rollout, the declared `restart.expectedMs` until one is), and never under
 * five minutes: long enough that a slow but healthy start is not taken for a worker that will never come back.
 */
export const WORKER_RETURN_FACTOR = 10;
export const WORKER_RETURN_FLOOR_MS = 300_000;

export function workerReturnTimeoutMs(s: RolloutState): number {
  // A checkpoint written before the setting existed has none: derived, as when it is not set.
  const set = s.settings.workerReturnMs ?? null;
  if (set !== null) return set;
  const declared = s.settings.expectedRestartMs;
  const measured = s.steps.flatMap((x) =>
    x.measurements.restartMs === null ? [] : [x.measurements.restartMs],
  );
  const restartMs = learnedRestartMs(measured, declared) ?? declared;
  return Math.max(restartMs * WORKER_RETURN_FACTOR, WORKER_RETURN_FLOOR_MS);
}
