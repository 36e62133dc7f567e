import type { WorkerSnapshot } from "../snapshot.js";
import {
  type ApprovalFacts,
  type ApprovalKind,
  approvalKindOf,
  type Decision,
  type PendingApproval,
  type WorkerSeen,
} from "./approval-types.js";
import type { RolloutEffect, RolloutEvent, Transition } from "./rollout-io.js";
import type { FinishReason } from "./rollout-reasons.js";
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
  reason: FinishReason,
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

/** What a phase asks a person: the facts (src/wording/ words them), the step it is about, the decisions offered. */
export interface Question {
  readonly step: number | null;
  readonly facts: ApprovalFacts;
  readonly options: readonly Decision[];
}

export function ask(
  state: RolloutState,
  now: number,
  question: Question,
  resume: ResumePoint,
  effects: readonly RolloutEffect[] = [],
): Transition {
  const seq = state.seq + 1;
  const pending: PendingApproval = {
    id: `${state.jobId}:a${seq}`,
    kind: approvalKindOf(question.facts),
    step: question.step,
    facts: question.facts,
    options: question.options,
    askedAt: now,
  };
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
  if (step.toVersion !== undefined) return step.toVersion;
  return state.target.kind === "upgrade" ? state.target.version : (step.fromVersion ?? "");
}

/** The step changes its worker's version: an upgrade's step, or a step with a version of its own (a rollback). */
export function stepChangesVersion(state: RolloutState, step: StepRecord): boolean {
  return step.toVersion !== undefined || state.target.kind === "upgrade";
}

export function isGranted(s: RolloutState, kind: ApprovalKind, step: number): boolean {
  return s.granted.some((g) => g.kind === kind && g.step === step);
}

/** What the read shows of a worker a person is asked about (absent: not reachable, no error known). */
export function workerSeen(w: WorkerSnapshot | undefined): WorkerSeen {
  return w?.reachable
    ? { reachable: true, version: w.version }
    : { reachable: false, error: w?.error ?? null };
}

/** Plain restart: a worker whose process started at or after this counts as restarted (the target's `since`). */
export function restartedSince(s: RolloutState): number {
  return s.target.since ?? s.startedAt;
}
