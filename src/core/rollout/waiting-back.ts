import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";
import { versionMatches } from "../version.js";
import { done, type PhaseResult, reenter } from "./phase-result.js";
import { watchBack } from "./poll-cadence.js";
import type { Transition } from "./rollout-io.js";
import type { Phase, RolloutState, StepRecord } from "./rollout-state.js";
import { startedSince, stepAt, updateStep } from "./step-helpers.js";
import { ask, stay, stepChangesVersion, targetVersionFor, workerSeen } from "./transitions.js";
import { workerReturnTimeoutMs } from "./worker-return.js";

/**
 * Waiting for a restarted worker to come back: probes of the worker alone, then one read of the whole cluster; too
 * long (`workerReturnTimeoutMs`), and a person is asked whether to restart it again, continue without it, keep
 * waiting or abort. After a takeover of a restart in flight (`verifying-restart`)
 * the restart is confirmed from the cluster's facts before anything else, and never repeated without asking.
 */

type WaitingBack = Extract<Phase, { kind: "waiting-back" }>;

function isBack(
  s: RolloutState,
  step: StepRecord,
  w: WorkerSnapshot | undefined,
  seenDown: boolean,
  since: number,
  now: number,
): boolean {
  if (!w?.reachable) return false;
  if (stepChangesVersion(s, step))
    return w.version !== null && versionMatches(w.version, targetVersionFor(s, step));
  return seenDown || startedSince(w, step.restartIssuedAt) || now - since >= s.settings.expectedRestartMs;
}

/** The step in flight and what the read says of its worker; null when the step is gone. */
function observeWorker(
  s: RolloutState,
  phase: { readonly step: number; readonly seenDown: boolean },
  snapshot: ClusterSnapshot,
): { step: StepRecord; worker: WorkerSnapshot | undefined; seenDown: boolean } | null {
  const step = stepAt(s, phase.step);
  if (!step) return null;
  const worker = snapshot.workers.find((x) => x.name === step.worker);
  return { step, worker, seenDown: phase.seenDown || !worker?.reachable };
}

/** A read of the whole cluster while the worker is out: back (on to the window or its gate), or not yet. */
export function onWaitingBack(s: RolloutState, snapshot: ClusterSnapshot, now: number): PhaseResult {
  const phase = s.phase;
  if (phase.kind !== "waiting-back") return done(stay(s));
  const seen = observeWorker(s, phase, snapshot);
  if (!seen) return done(stay(s));
  const { step, worker: w, seenDown } = seen;
  if (isBack(s, step, w, seenDown, phase.since, now))
    return reenter({ kind: "worker-back", step: step.step, baseline: phase.baseline }, s);
  return done(notBackYet(s, phase, step, w, seenDown, now));
}

/**
 * A probe of the restarted worker alone: once it looks back, the whole cluster is read (the window's next step and
 * the gate need it); until then, the next probe.
 */
export function onProbed(s: RolloutState, worker: WorkerSnapshot, now: number): Transition {
  const phase = s.phase;
  if (phase.kind !== "waiting-back") return stay(s);
  const step = stepAt(s, phase.step);
  if (!step || step.worker !== worker.name) return stay(s);
  const seenDown = phase.seenDown || !worker.reachable;
  if (isBack(s, step, worker, seenDown, phase.since, now))
    return {
      state: { ...s, phase: { ...phase, seenDown } },
      effects: [{ kind: "read-cluster", afterMs: 0 }],
    };
  return notBackYet(s, phase, step, worker, seenDown, now);
}

/** Not back yet: the next probe, or (after `workerReturnTimeoutMs`) the question what to do without it. */
function notBackYet(
  s: RolloutState,
  phase: WaitingBack,
  step: StepRecord,
  w: WorkerSnapshot | undefined,
  seenDown: boolean,
  now: number,
): Transition {
  const waiting: RolloutState = { ...s, phase: { ...phase, seenDown } };
  if (now - phase.since <= workerReturnTimeoutMs(s))
    return { state: waiting, effects: [watchBack(s, step, now)] };
  return ask(
    waiting,
    now,
    {
      step: step.step,
      facts: {
        kind: "worker-not-back",
        worker: step.worker,
        targetVersion: targetVersionFor(s, step),
        waitedMs: now - phase.since,
        seen: workerSeen(w),
        attempts: step.attempts,
      },
      options: ["restart-again", "continue-without", "keep-waiting", "abort"],
    },
    { kind: "worker-return", step: step.step, baseline: phase.baseline },
  );
}

/** After a takeover of a restart in flight: confirmed (down, or a newer process), back, or asked about. */
export function onVerifying(s: RolloutState, snapshot: ClusterSnapshot, now: number): PhaseResult {
  const phase = s.phase;
  if (phase.kind !== "verifying-restart") return done(stay(s));
  const seen = observeWorker(s, phase, snapshot);
  if (!seen) return done(stay(s));
  const { step, worker: w } = seen;
  // A process that started after the restart was issued confirms it as surely as seeing the worker down.
  const seenDown = seen.seenDown || startedSince(w, step.restartIssuedAt);
  const baseline = phase.baseline;
  const poll = { kind: "read-cluster", afterMs: s.settings.pollIntervalMs } as const;
  if (baseline && isBack(s, step, w, seenDown, phase.since, now) && (s.target.kind === "upgrade" || seenDown))
    return reenter({ kind: "worker-back", step: step.step, baseline }, s);
  if (baseline && seenDown) {
    // It went down: the restart is confirmed. Wait for it like any restart (workerReturnTimeoutMs, then the
    // worker-not-back question), never restart it again without asking.
    const waiting = updateStep(s, step.step, { status: "waiting-back" });
    return done({
      state: {
        ...waiting,
        phase: { kind: "waiting-back", step: step.step, since: phase.since, seenDown, baseline },
      },
      effects: [poll],
    });
  }
  const verifying: RolloutState = { ...s, phase: { ...phase, seenDown } };
  if (now - phase.since <= s.settings.expectedRestartMs * 2 + s.settings.pollIntervalMs)
    return done({ state: verifying, effects: [poll] });
  return done(
    ask(
      verifying,
      now,
      {
        step: step.step,
        facts: { kind: "restart-unconfirmed", worker: step.worker, seen: workerSeen(w) },
        options: ["approve", "abort"],
      },
      { kind: "retry-restart", step: step.step, baseline: phase.baseline },
    ),
  );
}
