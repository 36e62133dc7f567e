import { AppError, ErrorCode } from "../errors.js";
import type { Baseline } from "../settle/settle-types.js";
import type { RolloutEffect, Transition } from "./rollout-io.js";
import type { RolloutState } from "./rollout-state.js";

/**
 * How the phases hand over to each other without importing each other: a phase answers either a finished transition
 * or "re-enter in phase X" (the state so far and the effects to emit first), and `decide` follows the re-entries
 * until a phase is done. One read can cross several phases (a worker back inside a window starts the next step's
 * checks; a skipped step the next one's), so this is a loop, bounded.
 */

export type Reentry =
  /** The checks before the step the state's `before-step` phase names. */
  | { readonly kind: "before-step" }
  /** The restarted worker of `step` is back: the window goes on, or its gate starts. */
  | { readonly kind: "worker-back"; readonly step: number; readonly baseline: Baseline }
  /** The settle gate, with this read (the state's phase is `settling`). */
  | { readonly kind: "settling" };

export type PhaseResult =
  | { readonly kind: "done"; readonly transition: Transition }
  | {
      readonly kind: "reenter";
      readonly at: Reentry;
      readonly state: RolloutState;
      readonly effects: readonly RolloutEffect[];
    };

export function done(transition: Transition): PhaseResult {
  return { kind: "done", transition };
}

export function reenter(
  at: Reentry,
  state: RolloutState,
  effects: readonly RolloutEffect[] = [],
): PhaseResult {
  return { kind: "reenter", at, state, effects };
}

/**
 * Step `doneStep` is over (settled, crossed inside a window, continued): the next step's checks run at the next read,
 * or now when a pause or abort waits (it applies before the next restart, without another read).
 */
export function toNextStep(
  s: RolloutState,
  doneStep: number,
  effects: readonly RolloutEffect[],
): PhaseResult {
  const next: RolloutState = { ...s, phase: { kind: "before-step", step: doneStep + 1 } };
  if (next.pendingControl) return reenter({ kind: "before-step" }, next, effects);
  return done({ state: next, effects: [...effects, { kind: "read-cluster", afterMs: 0 }] });
}

/**
 * Follows re-entries from `first` until a phase is done, the effects of each in order. More than `limit(state)`
 * re-entries in one transition is a loop between phases: a bug, thrown rather than spun.
 */
export function followReentries(
  first: PhaseResult,
  enter: (at: Reentry, state: RolloutState) => PhaseResult,
  limit: (state: RolloutState) => number,
): Transition {
  const effects: RolloutEffect[] = [];
  let result = first;
  for (let n = 0; result.kind === "reenter"; n++) {
    if (n >= limit(result.state))
      throw new AppError(
        ErrorCode.Internal,
        `decide: ${n} re-entries in one transition (the last into ${result.at.kind}): the phases loop`,
        { details: { jobId: result.state.jobId, reentries: n, phase: result.at.kind } },
      );
    effects.push(...result.effects);
    result = enter(result.at, result.state);
  }
  const t = result.transition;
  return effects.length === 0 ? t : { state: t.state, effects: [...effects, ...t.effects] };
}
