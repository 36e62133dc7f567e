import { learnedRestartMs, withLearnedRestart, worthReplanning } from "../plan/learn-restart.js";
import { replanWindows } from "../plan/replan-windows.js";
import type { Baseline } from "../settle/settle-types.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { done, type PhaseResult, reenter, toNextStep } from "./phase-result.js";
import type { RolloutEffect } from "./rollout-io.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import { stepAt, updateStep } from "./step-helpers.js";
import { emit, stay } from "./transitions.js";
import { paceWindowKey } from "./window-key.js";
import { windowContinuation } from "./windows.js";

/**
 * A restarted worker is back: its restart time is measured, then either the window goes on (the next worker follows
 * at once, the gate waits for the window's last worker) or the settle gate starts. A pace window the deadline cuts
 * short ends with this worker, and the workers still to go are grouped into windows again.
 */
export function workerBack(
  s: RolloutState,
  stepNo: number,
  baseline: Baseline,
  snapshot: ClusterSnapshot,
  now: number,
): PhaseResult {
  const step = stepAt(s, stepNo);
  if (!step) return done(stay(s));
  const w = snapshot.workers.find((x) => x.name === step.worker);
  const restartMs = now - (step.restartIssuedAt ?? now);
  const next = updateStep(s, step.step, {
    status: "settling",
    backAt: now,
    backVersion: w?.version ?? null,
    measurements: { ...step.measurements, restartMs },
  });
  const back = emit({
    kind: "worker-back",
    step: step.step,
    worker: step.worker,
    version: w?.version ?? null,
    restartMs,
  });
  const learned = learnRestart(next, step.step);
  const events = [back, ...(learned.event ? [learned.event] : [])];
  const continuation = windowContinuation(learned.state, step, snapshot, now);
  if (continuation === "gate" && learned.changed && learned.state.plan) {
    const plan = learned.state.plan;
    const policy = learned.state.settings.planPolicy;
    const pending = learned.state.steps.filter((x) => x.step > step.step && x.status === "pending");
    const remaining = pending.map((x) => x.worker);
    // A follower on its own whose tasks are still held: with the learned time it may open a window after the fact
    // (its deadline is the one its stop set), so the next followers join it instead of waiting a delay of their own.
    if (learned.state.openWindow === null && !baseline.isLeader && baseline.delayDeadline !== null) {
      const regrouped = replanWindows(plan, policy, [step.worker, ...remaining]);
      const index = regrouped.steps.find((x) => x.step === step.step)?.window ?? null;
      if (index !== null) {
        const opened: RolloutState = {
          ...learned.state,
          plan: regrouped,
          openWindow: {
            key: paceWindowKey(index),
            snapshot: baseline.snapshot,
            deadline: baseline.delayDeadline,
            flow: baseline.flow,
          },
        };
        if (windowContinuation(opened, step, snapshot, now) === "continue")
          return afterLearning(opened, step, now, baseline, "continue", restartMs, events);
      }
    }
    // Otherwise the steps after this one are grouped again with the restart time measured so far.
    const replanned: RolloutState = { ...learned.state, plan: replanWindows(plan, policy, remaining) };
    return startGate(replanned, step, baseline, events);
  }
  return afterLearning(learned.state, step, now, baseline, continuation, restartMs, events);
}

/**
 * Pace `window`: the restart time measured so far (`learnedRestartMs`) replaces the one in use when it differs
 * enough; the event says so the first time (a later refinement is silent).
 */
function learnRestart(
  s: RolloutState,
  stepNo: number,
): { state: RolloutState; changed: boolean; event: RolloutEffect | null } {
  const unchanged = { state: s, changed: false, event: null };
  const policy = s.settings.planPolicy;
  if (policy.pace !== "window" || s.plan === null) return unchanged;
  const declared = s.plan.delay.expectedRestartMs;
  const measured = s.steps.flatMap((x) =>
    x.measurements.restartMs === null ? [] : [x.measurements.restartMs],
  );
  const learned = learnedRestartMs(measured, declared);
  if (learned === null || !worthReplanning(policy.expectedRestartMs, learned)) return unchanged;
  const change = withLearnedRestart(policy, learned, s.settings.delayMs);
  const state = { ...s, settings: { ...s.settings, planPolicy: change.policy } };
  const first = policy.expectedRestartMs === declared;
  return {
    state,
    changed: true,
    event: first
      ? emit({
          kind: "restart-learned",
          step: stepNo,
          declaredMs: declared,
          learnedMs: learned,
          samples: measured.length,
          followersPerWindowBefore: change.followersBefore,
          followersPerWindowAfter: change.followersAfter,
        })
      : null,
  };
}

function afterLearning(
  next: RolloutState,
  step: StepRecord,
  now: number,
  baseline: Baseline,
  continuation: "continue" | "cut-short" | "gate",
  restartMs: number,
  events: RolloutEffect[],
): PhaseResult {
  if (continuation === "cut-short" && next.plan) {
    // Cut short by the deadline: this window ends with this worker (its gate waits for the deadline), and the
    // workers still to go are grouped again into windows of their own instead of each waiting a full delay alone.
    const remaining = next.steps
      .filter((x) => x.step > step.step && x.status === "pending")
      .map((x) => x.worker);
    const replanned: RolloutState = {
      ...updateStep(next, step.step, {
        note: { kind: "window-cut-short", remaining: remaining.length },
      }),
      plan: replanWindows(next.plan, next.settings.planPolicy, remaining),
    };
    return startGate(replanned, step, baseline, events);
  }
  if (continuation === "continue") {
    const crossed = updateStep(next, step.step, {
      status: "settled",
      settledAt: now,
      note: { kind: "crossed-in-window" },
      measurements: { ...step.measurements, restartMs, settleMs: 0 },
    });
    const after = stepAt(crossed, step.step) ?? step;
    return toNextStep(crossed, step.step, [
      ...events,
      emit({
        kind: "step-settled",
        step: step.step,
        worker: step.worker,
        measurements: after.measurements,
        dataFlow: after.dataFlow,
      }),
    ]);
  }
  return startGate(next, step, baseline, events);
}

/** The settle gate of the step starts, on this same read. */
function startGate(
  s: RolloutState,
  step: StepRecord,
  baseline: Baseline,
  events: readonly RolloutEffect[],
): PhaseResult {
  const settling: RolloutState = {
    ...s,
    phase: { kind: "settling", step: step.step, baseline, stable: null, askSlowAfter: null },
  };
  return reenter({ kind: "settling" }, settling, [...events]);
}
