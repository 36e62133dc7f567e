import type { RolloutTarget } from "../plan/plan-types.js";
import { EMPTY_FLOW_TRACK } from "../settle/track-flow.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { beforeStep } from "./before-step.js";
import { foldRead } from "./fold-read.js";
import { onControl, onDecision, onRestartResult, onTakeover, onTimeLimit } from "./inputs.js";
import { withoutLeftBehind } from "./left-behind.js";
import { done, followReentries, type PhaseResult, type Reentry } from "./phase-result.js";
import { onPlanning } from "./planning.js";
import type { RolloutInput, Transition } from "./rollout-io.js";
import { ROLLOUT_STATE_VERSION, type RolloutSettings, type RolloutState } from "./rollout-state.js";
import { onSettling } from "./settling.js";
import { EMPTY_TRACK } from "./track-disruption.js";
import { stay } from "./transitions.js";
import { onProbed, onVerifying, onWaitingBack } from "./waiting-back.js";
import { workerBack } from "./worker-back.js";

/**
 * The rollout state machine's entry points. `decide(state, input)` is pure: it dispatches the input to the phase
 * modules (planning, before-step, waiting-back, worker-back, settling; inputs.ts for everything but a read) and,
 * since one read can cross several phases, follows their "re-enter in phase X" answers (phase-result.ts) until one
 * is done. Its vocabulary, each in the module that defines it: the checkpoint (rollout-state.ts), the inputs it takes
 * and the events and effects it returns (rollout-io.ts), approvals (approval-types.ts), and why it finished, skipped
 * or moved a step (rollout-reasons.ts).
 */

export interface NewRollout {
  readonly jobId: string;
  readonly cluster: string;
  readonly target: RolloutTarget;
  readonly image: string | null;
  readonly requestedBy: string;
  /** Resolved where settings enter core (the composition root's `rolloutSettingsFor`). */
  readonly settings: RolloutSettings;
  readonly now: number;
}

/** A new rollout: it first reads the cluster to plan. */
export function beginRollout(start: NewRollout): Transition {
  const state: RolloutState = {
    v: ROLLOUT_STATE_VERSION,
    jobId: start.jobId,
    cluster: start.cluster,
    target: start.target,
    image: start.image,
    requestedBy: start.requestedBy,
    startedAt: start.now,
    updatedAt: start.now,
    finishedAt: null,
    settings: start.settings,
    phase: { kind: "planning" },
    plan: null,
    steps: [],
    freeze: null,
    approvals: [],
    granted: [],
    pendingControl: null,
    track: EMPTY_TRACK,
    seq: 0,
    openWindow: null,
    timeline: [],
    flow: EMPTY_FLOW_TRACK,
  };
  return { state, effects: [{ kind: "read-cluster", afterMs: 0 }] };
}

/** The pure transition function: next state and the effects the runner must perform. */
export function decide(state: RolloutState, input: RolloutInput): Transition {
  if (state.phase.kind === "finished")
    return { state, effects: [{ kind: "finish", result: state.phase.result }] };
  const s: RolloutState = { ...state, updatedAt: input.now };
  switch (input.kind) {
    case "control-requested":
      return onControl(s, input.action, input.by, input.now);
    case "taken-over":
      return onTakeover(s, input.owner, input.now);
    case "time-limit-reached":
      return onTimeLimit(s, input.limitMs, input.now);
    case "approval-decided":
      return onDecision(s, input.approvalId, input.decision, input.by, input.now);
    case "worker-probed":
      return onProbed(s, input.worker, input.now);
    case "restart-accepted":
    case "restart-failed":
      // What the cluster did while the executor worked (a task still writing until its worker stops) counts first.
      return onRestartResult(
        (input.reads ?? []).reduce((x, read) => foldRead(x, withoutLeftBehind(x, read)), s),
        input,
      );
    case "cluster-read": {
      const snapshot = withoutLeftBehind(s, input.snapshot);
      return onClusterRead(foldRead(s, snapshot), snapshot, input.now);
    }
  }
}

/**
 * A read crosses at most a few phases per step (checks, skip or reorder, back, gate, the next step's checks): more
 * re-entries than this in one transition is a loop.
 */
function reentryLimit(s: RolloutState): number {
  return 4 * (s.steps.length + 2);
}

function onClusterRead(s: RolloutState, snapshot: ClusterSnapshot, now: number): Transition {
  const enter = (at: Reentry, state: RolloutState): PhaseResult => {
    switch (at.kind) {
      case "before-step":
        return beforeStep(state, snapshot, now);
      case "worker-back":
        return workerBack(state, at.step, at.baseline, snapshot, now);
      case "settling":
        return onSettling(state, snapshot, now);
    }
  };
  return followReentries(byPhase(s, snapshot, now), enter, reentryLimit);
}

function byPhase(s: RolloutState, snapshot: ClusterSnapshot, now: number): PhaseResult {
  switch (s.phase.kind) {
    case "planning":
      return onPlanning(s, snapshot, now);
    case "before-step":
      return beforeStep(s, snapshot, now);
    case "waiting-back":
      return onWaitingBack(s, snapshot, now);
    case "verifying-restart":
      return onVerifying(s, snapshot, now);
    case "settling":
      return onSettling(s, snapshot, now);
    default:
      return done(stay(s));
  }
}
