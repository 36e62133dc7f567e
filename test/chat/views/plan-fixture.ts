import type { Plan, PlanStep, StepWindow } from "../../../src/core/plan/plan-types.js";
import type { RolloutState, StepRecord } from "../../../src/core/rollout/rollout-state.js";

const MINUTE = 60_000;

/** A plausible plan for the builder's steps: followers held by a 5-minute delay, the leader last. */
export function planFor(
  cluster: string,
  target: RolloutState["target"],
  steps: readonly StepRecord[],
  eagerWindows: readonly StepWindow[],
  plannedAt: number,
): Plan {
  const planSteps: PlanStep[] = steps.map((s) => ({
    step: s.step,
    worker: s.worker,
    workerId: s.workerId,
    isLeader: s.isLeader,
    fromVersion: s.fromVersion,
    toVersion: target.version,
    tasks: 12,
    protocolBefore: "sessioned",
    protocolDuring: "sessioned",
    protocolAfter: "sessioned",
    disruption: s.isLeader ? "leader" : "held",
    predictedDowntimeMs: s.isLeader ? 45_000 : 300_000,
    predictedTaskDowntimeMs: 12 * (s.isLeader ? 45_000 : 300_000),
    predictedMoves: s.isLeader ? 6 : 0,
    predictedInterruptions: 0,
    predictedWallMs: 6 * MINUTE,
    window: null,
    reasons: s.isLeader
      ? ["group leader: restarted last"]
      : ["follower, 12 tasks held by the scheduled delay"],
  }));
  const last = steps[steps.length - 1];
  return {
    cluster,
    target,
    plannedAt,
    pace: "safe",
    leader:
      last === undefined
        ? { kind: "unknown", reason: "no worker" }
        : { kind: "known", worker: last.worker, url: last.url },
    steps: planSteps,
    skipped: [],
    eagerWindows,
    compatibleWindows: [],
    windows: [],
    delay: {
      delayMs: 300_000,
      source: "declared",
      expectedRestartMs: 45_000,
      recommendedDelayMs: null,
      restartFitsInDelay: true,
    },
    findings: [],
    dataFlow: { kind: "unseen", workers: [] },
    totals: {
      steps: planSteps.length,
      predictedMoves: planSteps.reduce((a, s) => a + s.predictedMoves, 0),
      predictedInterruptions: 0,
      predictedTaskDowntimeMs: planSteps.reduce((a, s) => a + s.predictedTaskDowntimeMs, 0),
      predictedMaxDowntimeMs: 300_000,
      predictedWallMs: { safe: planSteps.length * 6 * MINUTE, window: planSteps.length * 3 * MINUTE },
    },
    needsApproval: eagerWindows.length > 0,
    notes: [],
  };
}
