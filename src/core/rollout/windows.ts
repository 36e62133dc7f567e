import { resolveLeader } from "../plan/resolve-leader.js";
import { fitsBeforeDeadline, windowTiming } from "../plan/window-timing.js";
import { learnedFlow } from "../settle/assess-flow.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { versionMatches } from "../version.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import { startedSince, stepAt } from "./step-helpers.js";
import { restartedSince } from "./transitions.js";
import { eagerWindowKey, paceWindowKey, sameWindow, type WindowKey } from "./window-key.js";

/**
 * Windows: steps restarted back to back with one gate at the end (see `RolloutState.openWindow`). Which window a
 * step belongs to, opening and closing the window before a restart, and whether the next worker may follow at once
 * once one is back. Pure, like `decide`, which uses them.
 */

/**
 * The window the worker's step belongs to: its eager window first (crossed promptly,
 * docs/connect-behaviour.md#leaving-eager), else its pace window; null when the step runs on its own.
 */
export function windowKeyOf(
  s: RolloutState,
  step: Pick<StepRecord, "worker" | "toVersion">,
): WindowKey | null {
  // A step of its own version (a failed canary's rollback) runs on its own, in no window of the plan.
  if (step.toVersion !== undefined) return null;
  const planStep = s.plan?.steps.find((p) => p.worker === step.worker);
  if (!planStep) return null;
  const eager = s.plan?.eagerWindows.find((w) => planStep.step >= w.fromStep && planStep.step <= w.toStep);
  if (eager) return eagerWindowKey(eager.fromStep);
  return planStep.window === null ? null : paceWindowKey(planStep.window);
}

/** The first step of the eager window the worker's step is in (its approval is granted there); null outside one. */
export function eagerWindowStart(
  s: RolloutState,
  step: Pick<StepRecord, "worker" | "toVersion">,
): number | null {
  const key = windowKeyOf(s, step);
  return key?.kind === "eager" ? key.fromStep : null;
}

/**
 * The open window before `step`'s restart: the step's window opens (with this read as its baseline and, for a pace
 * window, the deadline of the scheduled delay starting now) unless it is open already; a step outside any window
 * closes the open one.
 */
export function enterWindowOf(
  s: RolloutState,
  step: StepRecord,
  snapshot: ClusterSnapshot,
  now: number,
): RolloutState {
  const key = windowKeyOf(s, step);
  if (key === null) return s.openWindow ? { ...s, openWindow: null } : s;
  if (sameWindow(s.openWindow?.key ?? null, key)) return s;
  const deadline = key.kind === "eager" ? null : now + s.settings.delayMs;
  const flow = learnedFlow(s.flow, now, s.settings.gatePolicy.flowWindowMs);
  return { ...s, openWindow: { key, snapshot, deadline, flow } };
}

/**
 * Whether the next worker can be restarted now instead of waiting for the gate: `continue` when the worker is back,
 * the next step belongs to the same window and (pace windows) can be back `marginMs` before the deadline, or is the
 * leader closing the window; `cut-short` when only the deadline stops it (the rest is grouped again); `gate`
 * otherwise.
 */
export function windowContinuation(
  s: RolloutState,
  step: StepRecord,
  snapshot: ClusterSnapshot,
  now: number,
): "continue" | "cut-short" | "gate" {
  const open = s.openWindow;
  const key = windowKeyOf(s, step);
  if (!open || !sameWindow(open.key, key)) return "gate";
  const next = stepAt(s, step.step + 1);
  if (next?.status !== "pending" || !sameWindow(windowKeyOf(s, next), key)) return "gate";
  // The next worker already runs the target: it would be skipped, so the window's gate must run now.
  const nextWorker = snapshot.workers.find((w) => w.name === next.worker);
  if (
    s.target.kind === "upgrade" &&
    nextWorker?.version &&
    versionMatches(nextWorker.version, s.target.version)
  )
    return "gate";
  if (s.target.kind === "restart" && startedSince(nextWorker, restartedSince(s))) return "gate";
  // The leader closing the window: its stop hands the held tasks out at once, whatever the deadline.
  const leader = resolveLeader(snapshot);
  if (open.deadline === null || (leader.kind === "known" && leader.worker === next.worker)) return "continue";
  const timing = windowTiming(s.settings.planPolicy, s.settings.delayMs);
  return fitsBeforeDeadline(timing, now, open.deadline) ? "continue" : "cut-short";
}
