import { resolveLeader } from "../plan/resolve-leader.js";
import { type ClusterSnapshot, sameConfigHash } from "../snapshot.js";
import type { FreezeChange } from "./approval-types.js";
import type { FreezeSnapshot, RolloutState, StepMeasurements, StepRecord } from "./rollout-state.js";
import type { DisruptionDelta } from "./track-disruption.js";

export const NO_MEASUREMENTS: StepMeasurements = {
  restartMs: null,
  settleMs: null,
  tasksMoved: 0,
  taskDowntimeMs: 0,
  rebalances: 0,
  eagerRebalances: 0,
  polls: 0,
};

/** A step as planned, before anything happened to it. */
export function pendingStep(
  p: Pick<StepRecord, "step" | "worker" | "workerId" | "url" | "isLeader" | "fromVersion">,
): StepRecord {
  return {
    ...p,
    status: "pending",
    attempts: 0,
    restartIssuedAt: null,
    restartDetail: null,
    backAt: null,
    backVersion: null,
    settledAt: null,
    gate: [],
    note: null,
    measurements: NO_MEASUREMENTS,
    dataFlow: null,
  };
}

export function stepAt(state: RolloutState, step: number): StepRecord | undefined {
  return state.steps[step - 1];
}

export function updateStep(state: RolloutState, step: number, patch: Partial<StepRecord>): RolloutState {
  return { ...state, steps: state.steps.map((s) => (s.step === step ? { ...s, ...patch } : s)) };
}

export function addDelta(m: StepMeasurements, d: DisruptionDelta): StepMeasurements {
  return {
    ...m,
    tasksMoved: m.tasksMoved + d.moves,
    taskDowntimeMs: m.taskDowntimeMs + d.downtimeMs,
    rebalances: m.rebalances + d.rebalances,
    eagerRebalances: m.eagerRebalances + d.eagerRebalances,
    polls: m.polls + 1,
  };
}

/** Connector config hashes and task counts (config freeze). */
export function freezeOf(snapshot: ClusterSnapshot): FreezeSnapshot {
  const out: Record<string, { configHash: string; taskCount: number }> = {};
  for (const c of snapshot.connectors ?? [])
    out[c.name] = { configHash: c.configHash, taskCount: c.taskCount };
  return out;
}

/** Every difference between the freeze and the cluster now: deleted, resized or reconfigured, then created. */
export function freezeChanges(freeze: FreezeSnapshot, snapshot: ClusterSnapshot): FreezeChange[] {
  if (snapshot.connectors === null) return [];
  const now = freezeOf(snapshot);
  const out: FreezeChange[] = [];
  for (const [connector, before] of Object.entries(freeze)) {
    const after = now[connector];
    if (!after) out.push({ kind: "deleted", connector });
    else if (after.taskCount !== before.taskCount)
      out.push({ kind: "task-count", connector, before: before.taskCount, after: after.taskCount });
    else if (!sameConfigHash(after.configHash, before.configHash)) out.push({ kind: "config", connector });
  }
  for (const connector of Object.keys(now))
    if (!(connector in freeze)) out.push({ kind: "created", connector });
  return out;
}

/** The steps in their new order, numbered from 1, the leader's marked. */
function renumbered(state: RolloutState, steps: readonly StepRecord[], leader: string): RolloutState {
  return { ...state, steps: steps.map((s, i) => ({ ...s, step: i + 1, isLeader: s.worker === leader })) };
}

/**
 * Keeps the leader last: when the worker of `step` is the current leader and followers are still pending after it,
 * moves it to the end. Returns null when nothing moves.
 */
export function keepLeaderLast(
  state: RolloutState,
  step: number,
  snapshot: ClusterSnapshot,
): RolloutState | null {
  const leader = resolveLeader(snapshot);
  if (leader.kind !== "known") return null;
  const current = stepAt(state, step);
  if (!current || current.worker !== leader.worker) return null;
  const later = state.steps.filter((s) => s.step > step && s.status === "pending");
  if (later.length === 0) return null;
  const before = state.steps.filter((s) => s.step < step);
  const reordered = [
    ...before,
    ...later,
    ...state.steps.filter((s) => s.step > step && s.status !== "pending"),
    current,
  ];
  return renumbered(state, reordered, leader.worker);
}

/**
 * Brings the group leader forward (pace `rotate`): when the current leader is a pending worker of a later step, its
 * step becomes `step` and the steps in between follow it in their order. Returns null when nothing moves.
 */
export function bringLeaderForward(
  state: RolloutState,
  step: number,
  snapshot: ClusterSnapshot,
): RolloutState | null {
  const leader = resolveLeader(snapshot);
  if (leader.kind !== "known") return null;
  const current = stepAt(state, step);
  if (!current || current.worker === leader.worker) return null;
  const leading = state.steps.find(
    (s) => s.step > step && s.status === "pending" && s.worker === leader.worker,
  );
  if (!leading) return null;
  const reordered = [
    ...state.steps.filter((s) => s.step < step),
    leading,
    ...state.steps.filter((s) => s.step >= step && s !== leading),
  ];
  return renumbered(state, reordered, leader.worker);
}

/** True when the worker's process (app-info `start-time-ms`) started at or after `at`; false when unknown. */
export function startedSince(
  worker: ClusterSnapshot["workers"][number] | undefined,
  at: number | null,
): boolean {
  const started = worker?.metrics?.startTimeMs;
  return at !== null && started !== undefined && started !== null && started >= at;
}
