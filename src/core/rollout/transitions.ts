import type { ApprovalKind, PendingApproval } from "./approval-types.js";
import type { RolloutEffect, RolloutEvent, Transition } from "./rollout-io.js";
import type { ResumePoint, RolloutResult, RolloutState, StepRecord } from "./rollout-state.js";

/**
 * The answers every phase builds its transition from: the action that continues a phase, staying put, finishing,
 * asking a person, pausing; and the few facts of the rollout more than one phase reads.
 */

export const emit = (event: RolloutEvent): RolloutEffect => ({ kind: "emit", event });

/** The action that continues a phase, for resumption and for inputs a phase ignores. */
export function nextAction(state: RolloutState): RolloutEffect {
  const p = state.phase;
  switch (p.kind) {
    case "awaiting-approval":
      return { kind: "await-approval", approval: p.approval };
    case "paused":
      return { kind: "await-resume" };
    case "finished":
      return { kind: "finish", result: p.result };
    case "restarting":
      return { kind: "read-cluster", afterMs: 0 };
    default:
      return {
        kind: "read-cluster",
        afterMs: p.kind === "planning" || p.kind === "before-step" ? 0 : state.settings.pollIntervalMs,
      };
  }
}

export function stay(state: RolloutState): Transition {
  return { state, effects: [nextAction(state)] };
}

export function finish(
  state: RolloutState,
  now: number,
  result: RolloutResult,
  reason: string,
  effects: readonly RolloutEffect[] = [],
): Transition {
  const done: RolloutState = {
    ...state,
    phase: { kind: "finished", result, reason },
    finishedAt: now,
    updatedAt: now,
  };
  return {
    state: done,
    effects: [...effects, emit({ kind: "rollout-finished", result, reason }), { kind: "finish", result }],
  };
}

export function ask(
  state: RolloutState,
  now: number,
  approval: Omit<PendingApproval, "id" | "askedAt">,
  resume: ResumePoint,
  effects: readonly RolloutEffect[] = [],
): Transition {
  const seq = state.seq + 1;
  const pending: PendingApproval = { ...approval, id: `${state.jobId}:a${seq}`, askedAt: now };
  const next: RolloutState = {
    ...state,
    seq,
    phase: { kind: "awaiting-approval", approval: pending, resume },
    updatedAt: now,
  };
  return {
    state: next,
    effects: [
      ...effects,
      emit({ kind: "approval-requested", approval: pending }),
      { kind: "await-approval", approval: pending },
    ],
  };
}

export function pauseAt(
  s: RolloutState,
  step: number,
  by: string,
  now: number,
  effects: readonly RolloutEffect[] = [],
): Transition {
  const next: RolloutState = { ...s, phase: { kind: "paused", step, by, at: now } };
  return {
    state: next,
    effects: [...effects, emit({ kind: "rollout-paused", by, step }), { kind: "await-resume" }],
  };
}

/** The version the step restarts its worker into: the target's, or (plain restart) the one it runs. */
export function targetVersionFor(state: RolloutState, step: StepRecord): string {
  return state.target.kind === "upgrade" ? state.target.version : (step.fromVersion ?? "");
}

export function isGranted(s: RolloutState, kind: ApprovalKind, step: number): boolean {
  return s.granted.some((g) => g.kind === kind && g.step === step);
}

/** Plain restart: a worker whose process started at or after this counts as restarted (the target's `since`). */
export function restartedSince(s: RolloutState): number {
  return s.target.since ?? s.startedAt;
}
