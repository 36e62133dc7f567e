import { resolveLeader } from "../plan/resolve-leader.js";
import { learnedFlow } from "../settle/assess-flow.js";
import { captureBaseline } from "../settle/capture-baseline.js";
import type { ClusterSnapshot } from "../snapshot.js";
import {
  applyPendingControl,
  askAboutConfigChanges,
  askBeforeEagerWindow,
  type BeforeStep,
  finishAfterLastStep,
  gateRetryThatActed,
  type RolloutGuard,
  restartLeaderLast,
  type StepGuard,
  skipWorkerOnTarget,
  waitForExactlyOnceLeader,
} from "./before-step-guards.js";
import { soakCanary } from "./canary.js";
import { done, type PhaseResult } from "./phase-result.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import { stepAt, updateStep } from "./step-helpers.js";
import { emit, finish, stay, targetVersionFor } from "./transitions.js";
import { waitForUnreachableWorker } from "./unreachable-wait.js";
import { enterWindowOf, windowKeyOf } from "./windows.js";

/**
 * Before a step: the guards below, in order (the first that stops decides), then the restart of the step's worker
 * (its window opened or closed, the gate's baseline captured).
 */

/** About the rollout, first: a pause or abort that waits applies before anything else; no step left finishes. */
const ROLLOUT_GUARDS: readonly RolloutGuard[] = [applyPendingControl, finishAfterLastStep];

/** Then about the next step, in this order. */
const STEP_GUARDS: readonly StepGuard[] = [
  soakCanary,
  askAboutConfigChanges,
  gateRetryThatActed,
  waitForUnreachableWorker,
  skipWorkerOnTarget,
  restartLeaderLast,
  waitForExactlyOnceLeader,
  askBeforeEagerWindow,
];

/** The checks before the step the `before-step` phase names, on this read; the restart when every guard passes. */
export function beforeStep(s: RolloutState, snapshot: ClusterSnapshot, now: number): PhaseResult {
  if (s.phase.kind !== "before-step") return done(stay(s));
  let b: BeforeStep = { state: s, stepNo: s.phase.step, snapshot, now };
  for (const guard of ROLLOUT_GUARDS) {
    const outcome = guard(b);
    if (outcome.kind === "stop") return outcome.result;
    b = { ...b, state: outcome.state };
  }
  const step = stepAt(b.state, b.stepNo);
  if (!step) return done(stay(b.state));
  for (const guard of STEP_GUARDS) {
    const outcome = guard(b, step);
    if (outcome.kind === "stop") return outcome.result;
    b = { ...b, state: outcome.state };
  }
  return restartStep(b, step);
}

/**
 * A plain restart restarts a worker into the version it runs: one the plan could not read (unreachable then) is
 * taken from this read, so the executor is never asked for an empty version.
 */
function withVersionRead(b: BeforeStep, step: StepRecord): StepRecord {
  if (b.state.target.kind !== "restart" || step.fromVersion !== null) return step;
  const version = b.snapshot.workers.find((w) => w.name === step.worker)?.version ?? null;
  return version === null ? step : { ...step, fromVersion: version };
}

function leadsNow(snapshot: ClusterSnapshot, worker: string): boolean {
  const leader = resolveLeader(snapshot);
  return leader.kind === "known" && leader.worker === worker;
}

/**
 * The restart: the step's window opens (or the open one closes), the gate's baseline is captured (the window's
 * first read inside a window) and the runner is told to restart the worker.
 */
function restartStep(b: BeforeStep, planned: StepRecord): PhaseResult {
  const { now, stepNo } = b;
  const step = withVersionRead(b, planned);
  const read = step === planned ? b.state : updateStep(b.state, stepNo, { fromVersion: step.fromVersion });
  const s = enterWindowOf(read, step, b.snapshot, now);
  const key = windowKeyOf(s, step);
  const open = key !== null ? s.openWindow : null;
  const eagerStep = key?.kind === "eager";
  const flow = open ? open.flow : learnedFlow(s.flow, now, s.settings.gatePolicy.flowWindowMs);
  const baseline = captureBaseline(open ? open.snapshot : b.snapshot, {
    step: stepNo,
    worker: step.worker,
    targetVersion: targetVersionFor(s, step),
    stopIssuedAt: now,
    // An eager group has no scheduled delay: every rebalance reassigns everything at once.
    delayMs: eagerStep ? 0 : s.settings.delayMs,
    sessionTimeoutMs: s.settings.sessionTimeoutMs,
    // A step added during the rollout (a canary's rollback) leads or not as this read says; planned steps as planned.
    isLeader: step.toVersion === undefined ? step.isLeader : leadsNow(b.snapshot, step.worker),
    ...(open && open.deadline !== null ? { openWindowDeadline: open.deadline } : {}),
    flow,
  });
  if (baseline.kind !== "captured")
    return done(
      finish(s, now, "failed", {
        kind: "worker-not-found",
        worker: step.worker,
        cluster: b.snapshot.cluster,
      }),
    );
  const attempts = step.attempts + 1;
  const stepId = `${s.jobId}:${stepNo}:${attempts}`;
  const issued = updateStep(s, stepNo, {
    status: "restart-issued",
    attempts,
    restartIssuedAt: now,
    note: null,
    gate: [],
    dataFlow: flow === null ? null : { gaps: {}, idle: flow.idle.length, peakLag: {}, lag: [] },
  });
  return done({
    state: { ...issued, phase: { kind: "restarting", step: stepNo, stepId, baseline: baseline.baseline } },
    effects: [
      emit({ kind: "step-started", step: stepNo, worker: step.worker }),
      { kind: "restart-worker", step: stepNo, stepId, worker: step.worker },
    ],
  });
}
