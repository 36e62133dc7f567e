import type { FinishReason } from "./rollout-reasons.js";
import type { RolloutResult, RolloutState } from "./rollout-state.js";

export interface RolloutSummary {
  readonly kind: "summary";
  readonly jobId: string;
  readonly cluster: string;
  readonly target: string;
  readonly result: RolloutResult | "running";
  /** Why it finished (null while running); the views word it. */
  readonly reason: FinishReason | null;
  readonly steps: readonly {
    readonly step: number;
    readonly worker: string;
    readonly isLeader: boolean;
    readonly status: string;
    readonly restartMs: number | null;
    readonly settleMs: number | null;
    readonly tasksMoved: number;
    readonly taskDowntimeMs: number;
    readonly rebalances: number;
    readonly eagerRebalances: number;
    /** The plan's prediction for this step (null when the step was not planned). */
    readonly predictedDowntimeMs: number | null;
    readonly predictedMoves: number | null;
  }[];
  readonly totals: {
    readonly wallMs: number;
    readonly stepsDone: number;
    readonly stepsTotal: number;
    readonly tasksMoved: number;
    readonly taskDowntimeMs: number;
    readonly rebalances: number;
    readonly eagerRebalances: number;
    readonly approvals: number;
  };
  readonly approvals: readonly {
    readonly kind: string;
    readonly decision: string;
    readonly by: string;
    readonly at: number;
  }[];
  /** The plan's predictions next to what happened (null without a plan). Wrong predictions are planner bugs. */
  readonly planVsReality: PlanVsReality | null;
}

export interface PlanVsReality {
  readonly tasksMoved: { readonly predicted: number; readonly real: number };
  readonly taskDowntimeMs: { readonly predicted: number; readonly real: number };
  readonly wallMs: { readonly predicted: number; readonly real: number };
  readonly interruptions: { readonly predicted: number };
}

const DONE = new Set(["settled", "continued", "skipped"]);

/**
 * The final report's figures (also `run --json`'s last line, where the CLI adds the reason and where the cluster
 * stands in words: src/chat/views/rollout-wording.ts). Pure.
 */
export function summarizeRollout(state: RolloutState, now: number): RolloutSummary {
  const planned = new Map((state.plan?.steps ?? []).map((p) => [p.worker, p]));
  const steps = state.steps.map((s) => ({
    step: s.step,
    worker: s.worker,
    isLeader: s.isLeader,
    status: s.status,
    restartMs: s.measurements.restartMs,
    settleMs: s.measurements.settleMs,
    tasksMoved: s.measurements.tasksMoved,
    taskDowntimeMs: s.measurements.taskDowntimeMs,
    rebalances: s.measurements.rebalances,
    eagerRebalances: s.measurements.eagerRebalances,
    predictedDowntimeMs: planned.get(s.worker)?.predictedDowntimeMs ?? null,
    predictedMoves: planned.get(s.worker)?.predictedMoves ?? null,
  }));
  const sum = (f: (s: (typeof steps)[number]) => number) => steps.reduce((a, s) => a + f(s), 0);
  const phase = state.phase;
  const done = state.steps.filter((s) => DONE.has(s.status));
  const target = state.target.kind === "upgrade" ? state.target.version : "restart";
  const wall = (state.finishedAt ?? now) - state.startedAt;
  const plan = state.plan;
  const planVsReality: PlanVsReality | null =
    plan === null
      ? null
      : {
          tasksMoved: { predicted: plan.totals.predictedMoves, real: sum((s) => s.tasksMoved) },
          taskDowntimeMs: {
            predicted: plan.totals.predictedTaskDowntimeMs,
            real: sum((s) => s.taskDowntimeMs),
          },
          wallMs: {
            predicted:
              plan.pace === "window" ? plan.totals.predictedWallMs.window : plan.totals.predictedWallMs.safe,
            real: wall,
          },
          interruptions: { predicted: plan.totals.predictedInterruptions },
        };
  return {
    kind: "summary",
    jobId: state.jobId,
    cluster: state.cluster,
    target,
    result: phase.kind === "finished" ? phase.result : "running",
    reason: phase.kind === "finished" ? phase.reason : null,
    steps,
    totals: {
      wallMs: wall,
      stepsDone: done.length,
      stepsTotal: state.steps.length,
      tasksMoved: sum((s) => s.tasksMoved),
      taskDowntimeMs: sum((s) => s.taskDowntimeMs),
      rebalances: sum((s) => s.rebalances),
      eagerRebalances: sum((s) => s.eagerRebalances),
      approvals: state.approvals.length,
    },
    approvals: state.approvals.map((a) => ({ kind: a.kind, decision: a.decision, by: a.by, at: a.at })),
    planVsReality,
  };
}
