import type { BeforeStep, GuardOutcome } from "./before-step-guards.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import { updateStep } from "./step-helpers.js";
import { emit } from "./transitions.js";

/** How many expected restarts a worker that does not answer at its step is given to come back by itself. */
const RESTARTS_TO_WAIT = 3;

/**
 * A step whose worker does not answer, before its first attempt, waits up to three expected restarts before it is
 * restarted: the worker may be coming back from a restart this rollout cannot know of (a lost record's rollout, a
 * person, the platform), and restarting it then would restart it twice. Once it answers, the guards after this one
 * decide (a worker started since the rollout began, or already on the target, is skipped); if it does not, it is
 * restarted as planned.
 */
export function waitForUnreachableWorker(b: BeforeStep, step: StepRecord): GuardOutcome {
  const s = b.state;
  if (step.status !== "pending" || step.attempts > 0) return pass(s);
  const worker = b.snapshot.workers.find((w) => w.name === step.worker);
  if (worker === undefined || worker.reachable) return pass(clearWait(s, step));
  const since = step.silentSince ?? b.now;
  const limitMs = RESTARTS_TO_WAIT * s.settings.expectedRestartMs;
  if (b.now - since >= limitMs) return pass(s);
  const waiting: RolloutState = updateStep(s, step.step, { silentSince: since });
  return {
    kind: "stop",
    result: {
      kind: "done",
      transition: {
        state: waiting,
        effects: [
          emit({
            kind: "gate-waiting",
            step: b.stepNo,
            worker: step.worker,
            reasons: [
              {
                code: "worker-down",
                worker: step.worker,
                message: `${step.worker} does not answer${worker.error ? ` (${worker.error})` : ""}: it may be restarting; waiting up to ${Math.round(limitMs / 1000)}s for it before restarting it`,
              },
            ],
          }),
          { kind: "read-cluster", afterMs: s.settings.pollIntervalMs },
        ],
      },
    },
  };
}

function clearWait(s: RolloutState, step: StepRecord): RolloutState {
  if (step.silentSince === undefined) return s;
  return { ...s, steps: s.steps.map((x) => (x.step === step.step ? withoutSilence(x) : x)) };
}

function withoutSilence(step: StepRecord): StepRecord {
  const { silentSince: _cleared, ...rest } = step;
  return rest;
}

function pass(state: RolloutState): GuardOutcome {
  return { kind: "pass", state };
}
