import { versionMatches } from "../version.js";
import type { Decision } from "./approval-types.js";
import type { BeforeStep, GuardOutcome } from "./before-step-guards.js";
import {
  canaryCounters,
  canaryLost,
  canaryTasksFailed,
  failedTasks,
  gcSeconds,
  measureCanary,
} from "./canary-measure.js";
import type { CanaryFinding, CanarySettings, CanaryTrack } from "./canary-types.js";
import type { RolloutEffect, Transition } from "./rollout-io.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import { pendingStep, stepAt, updateStep } from "./step-helpers.js";
import { ask, emit, stay } from "./transitions.js";

/**
 * The canary soak, as a guard before each step: once the rollout's first restarted worker has settled on the target,
 * the next step waits `canary.soakMs` while that worker's tasks run beside the old workers', then compares them
 * (`measureCanary`). A pass is said with the figures and the rollout goes on; a failure, or a canary task FAILED at
 * any read of the soak, asks: roll the canary back, continue, or abort.
 */
export function soakCanary(b: BeforeStep, _step: StepRecord): GuardOutcome {
  const s = b.state;
  const settings = canarySettingsFor(s);
  if (settings === null) return pass(s);
  const track = s.canary ?? null;
  if (track === null) {
    // The soak starts once a gate of its own has passed for the step before this one: never inside a pace or eager
    // window (a step crossed inside one is settled before the window's gate).
    const previous = stepAt(s, b.stepNo - 1);
    const gated = previous?.status === "settled" && previous.note?.kind !== "crossed-in-window";
    const canary = s.steps.find((x) => x.status === "settled");
    if (!gated || !canary || canary.step >= b.stepNo) return pass(s);
    const worker = b.snapshot.workers.find((w) => w.name === canary.worker);
    const started: CanaryTrack = {
      step: canary.step,
      worker: canary.worker,
      workerId: worker?.workerId ?? canary.workerId,
      startedAt: b.now,
      start: canaryCounters(b.snapshot),
      gcAtStart: gcSeconds(b.snapshot),
      failedAtStart: failedTasks(b.snapshot),
      verdict: "soaking",
      figures: null,
      findings: [],
    };
    return wait(
      { ...s, canary: started },
      settings.soakMs,
      emit({ kind: "canary-soaking", step: canary.step, worker: canary.worker, soakMs: settings.soakMs }),
    );
  }
  if (track.verdict !== "soaking") return pass(s);
  const failed = canaryTasksFailed(track, b.snapshot);
  const elapsed = b.now - track.startedAt;
  if (failed.length === 0 && elapsed < settings.soakMs) return wait(s, settings.soakMs - elapsed);
  const old = oldWorkerIds(s, b);
  const measured = measureCanary(track, b.snapshot, old, settings);
  const lost = canaryLost(
    track,
    b.snapshot,
    (v) => s.target.kind !== "upgrade" || versionMatches(v, s.target.version),
  );
  const findings: CanaryFinding[] = [
    ...(failed.length > 0 ? [{ metric: "task-failed" as const, tasks: failed }] : []),
    ...lost,
    ...measured.findings,
  ];
  if (findings.length === 0) {
    const passed: RolloutState = { ...s, canary: { ...track, verdict: "passed", figures: measured.figures } };
    return {
      kind: "stop",
      result: {
        kind: "reenter",
        at: { kind: "before-step" },
        state: passed,
        effects: [
          emit({ kind: "canary-passed", step: track.step, worker: track.worker, figures: measured.figures }),
        ],
      },
    };
  }
  const failedTrack: CanaryTrack = { ...track, verdict: "failed", figures: measured.figures, findings };
  const canaryStep = stepAt(s, track.step);
  return {
    kind: "stop",
    result: {
      kind: "done",
      transition: ask(
        { ...s, canary: failedTrack },
        b.now,
        {
          step: b.stepNo,
          facts: {
            kind: "canary",
            worker: track.worker,
            version: s.target.version,
            from: canaryStep?.fromVersion ?? null,
            findings,
            figures: measured.figures,
          },
          // Rolling back restarts the canary a second time: it is offered first, and only a person or a named
          // --approve=canary picks it.
          options:
            s.target.kind === "upgrade" && canaryStep?.fromVersion
              ? ["rollback", "continue", "abort"]
              : ["continue", "abort"],
        },
        { kind: "canary", step: b.stepNo },
      ),
    },
  };
}

/**
 * The decision at a failed canary's prompt: `continue` goes on with the step it was asked before; `rollback` adds a
 * last step that returns the canary to the version it left, marks the steps not started as not restarted, and the
 * rollout ends failed once that step settled (`finishAfterLastStep`).
 */
export function onCanaryDecision(
  s: RolloutState,
  step: number,
  decision: Decision,
  decided: RolloutEffect,
): Transition {
  const track = s.canary;
  if (!track) return stay(s);
  const readNow = (next: RolloutState): Transition => ({
    state: next,
    effects: [decided, { kind: "read-cluster", afterMs: 0 }],
  });
  if (decision === "continue")
    return readNow({
      ...s,
      canary: { ...track, verdict: "continued" },
      phase: { kind: "before-step", step },
    });
  const canary = stepAt(s, track.step);
  if (decision !== "rollback" || !canary?.fromVersion) return stay(s);
  let next: RolloutState = { ...s, canary: { ...track, verdict: "rolled-back" } };
  for (const later of s.steps.filter((x) => x.step >= step && x.status === "pending"))
    next = updateStep(next, later.step, {
      status: "skipped",
      note: { kind: "after-canary-rollback", worker: track.worker },
    });
  // Every worker this rollout moved goes back, newest move first: the canary, and any that crossed with it in a window.
  const moved = s.steps
    .filter((x) => x.restartIssuedAt !== null && x.toVersion === undefined && x.fromVersion !== null)
    .sort((a, c) => (c.restartIssuedAt ?? 0) - (a.restartIssuedAt ?? 0) || c.step - a.step);
  const backSteps: StepRecord[] = moved.map((m, i) => ({
    ...pendingStep({
      step: next.steps.length + 1 + i,
      worker: m.worker,
      workerId: m.workerId,
      url: m.url,
      isLeader: false,
      fromVersion: s.target.version,
    }),
    toVersion: m.fromVersion ?? "",
    note: { kind: "canary-rollback", version: m.fromVersion ?? "" },
  }));
  const first = backSteps[0];
  if (!first) return stay(s);
  return readNow({
    ...next,
    steps: [...next.steps, ...backSteps],
    phase: { kind: "before-step", step: first.step },
  });
}

/** The soak's settings for this rollout, or null: none configured, a soak of 0, a rollback, a plain restart unasked. */
function canarySettingsFor(s: RolloutState): CanarySettings | null {
  const c = s.settings.canary ?? null;
  if (c === null || c.soakMs <= 0 || s.target.rollback) return null;
  if (s.target.kind === "restart" && !c.onRestart) return null;
  return c;
}

/** Workers still on the version the rollout leaves: their tasks are what the canary is compared with. */
function oldWorkerIds(s: RolloutState, b: BeforeStep): Set<string> {
  const restarted = new Set(s.steps.filter((x) => x.restartIssuedAt !== null).map((x) => x.worker));
  return new Set(
    b.snapshot.workers
      .filter((w) => w.reachable && !restarted.has(w.name))
      .filter(
        (w) =>
          s.target.kind !== "upgrade" || w.version === null || !versionMatches(w.version, s.target.version),
      )
      .map((w) => w.workerId),
  );
}

function pass(state: RolloutState): GuardOutcome {
  return { kind: "pass", state };
}

/** Re-read at the poll interval (or when the soak ends, if sooner), with `event` said first. */
function wait(state: RolloutState, remainingMs: number, event?: RolloutEffect): GuardOutcome {
  return {
    kind: "stop",
    result: {
      kind: "done",
      transition: {
        state,
        effects: [
          ...(event ? [event] : []),
          {
            kind: "read-cluster",
            afterMs: Math.max(0, Math.min(state.settings.pollIntervalMs, remainingMs)),
          },
        ],
      },
    },
  };
}
