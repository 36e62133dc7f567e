import type { FinishReason } from "./rollout-reasons.js";
import type { RolloutResult, RolloutState, StepExactlyOnce, StepRecord } from "./rollout-state.js";

export interface RolloutSummary {
  readonly kind: "summary";
  readonly jobId: string;
  readonly cluster: string;
  readonly target: string;
  readonly result: RolloutResult | "running";
  /** Why it finished (null while running); src/wording/ words it. */
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
    /** The data-flow gaps measured from the per-task metrics (null when data flow was not visible). */
    readonly dataFlow: { readonly maxGapMs: number; readonly tasks: number } | null;
    /** The step's exactly-once tasks, their first committed transaction and fencing failures (null: none). */
    readonly exactlyOnce: StepExactlyOnce | null;
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
    readonly dataFlow: DataFlowTotals | null;
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

/** The rollout's data-flow gaps, from the per-task metrics (resolution: the poll interval). */
export interface DataFlowTotals {
  /** The longest gap of any task. */
  readonly maxGapMs: number;
  /** Σ of every task's gaps over every step. */
  readonly sumGapMs: number;
  /** Tasks with a gap measured (they stopped and moved data again). */
  readonly tasksMeasured: number;
  /** Tasks idle before the rollout (exempt). */
  readonly tasksIdle: number;
  /** Each measured task's longest gap, by "connector/N". */
  readonly perTask: Readonly<Record<string, number>>;
}

export interface PlanVsReality {
  readonly tasksMoved: { readonly predicted: number; readonly real: number };
  /** The status estimate of Σ task downtime. */
  readonly taskDowntimeMs: { readonly predicted: number; readonly real: number };
  /** The plan's longest per-task downtime next to the longest data-flow gap measured (null: data flow not visible). */
  readonly dataFlowGapMs: { readonly predicted: number; readonly real: number } | null;
  readonly wallMs: { readonly predicted: number; readonly real: number };
  readonly interruptions: { readonly predicted: number };
}

/** Moves, downtime and rebalances, summed over a rollout's steps. */
export interface DisruptionTotals {
  readonly tasksMoved: number;
  readonly taskDowntimeMs: number;
  readonly rebalances: number;
  readonly eagerRebalances: number;
}

const DONE: ReadonlySet<StepRecord["status"]> = new Set(["settled", "continued", "skipped"]);

/** A step is done when it settled, was continued past its gate by a person, or was skipped (already on target). */
export function isStepDone(step: Pick<StepRecord, "status">): boolean {
  return DONE.has(step.status);
}

/** How many of the rollout's steps are done (`isStepDone`). */
export function stepsDone(state: RolloutState): number {
  return state.steps.filter(isStepDone).length;
}

/** The rollout's disruption so far: its steps' measurements, summed. */
export function disruptionTotals(state: RolloutState): DisruptionTotals {
  const sum = (f: (m: StepRecord["measurements"]) => number) =>
    state.steps.reduce((total, s) => total + f(s.measurements), 0);
  return {
    tasksMoved: sum((m) => m.tasksMoved),
    taskDowntimeMs: sum((m) => m.taskDowntimeMs),
    rebalances: sum((m) => m.rebalances),
    eagerRebalances: sum((m) => m.eagerRebalances),
  };
}

/**
 * The final report's figures (also `run --json`'s last line, where the CLI adds the reason and where the cluster
 * stands in words: src/wording/). Pure.
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
    dataFlow:
      s.dataFlow === null
        ? null
        : {
            maxGapMs: Math.max(0, ...Object.values(s.dataFlow.gaps)),
            tasks: Object.keys(s.dataFlow.gaps).length,
          },
    exactlyOnce: s.exactlyOnce ?? null,
  }));
  const dataFlow = dataFlowTotals(state);
  const totals = disruptionTotals(state);
  const phase = state.phase;
  const target = state.target.kind === "upgrade" ? state.target.version : "restart";
  const wall = (state.finishedAt ?? now) - state.startedAt;
  const plan = state.plan;
  // The forecast of the plan's own pace, where the plan has one (pace rotate's weighs who will lead).
  const forecast = plan?.totals.paces?.find((f) => f.pace === plan.pace);
  const planVsReality: PlanVsReality | null =
    plan === null
      ? null
      : {
          tasksMoved: { predicted: plan.totals.predictedMoves, real: totals.tasksMoved },
          taskDowntimeMs: {
            predicted: forecast?.taskDowntimeMs ?? plan.totals.predictedTaskDowntimeMs,
            real: totals.taskDowntimeMs,
          },
          dataFlowGapMs:
            dataFlow === null
              ? null
              : { predicted: plan.totals.predictedMaxDowntimeMs, real: dataFlow.maxGapMs },
          wallMs: {
            predicted:
              forecast?.wallMs ??
              (plan.pace === "window"
                ? plan.totals.predictedWallMs.window
                : plan.totals.predictedWallMs.safe),
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
      stepsDone: stepsDone(state),
      stepsTotal: state.steps.length,
      ...totals,
      approvals: state.approvals.length,
      dataFlow,
    },
    approvals: state.approvals.map((a) => ({ kind: a.kind, decision: a.decision, by: a.by, at: a.at })),
    planVsReality,
  };
}

/** The data-flow gaps of every step that could see them; null when no step could (no per-task metrics). */
export function dataFlowTotals(state: RolloutState): DataFlowTotals | null {
  const seen = state.steps.filter((s) => s.dataFlow !== null);
  if (seen.length === 0) return null;
  const perTask: Record<string, number> = {};
  let sumGapMs = 0;
  for (const s of seen)
    for (const [task, gap] of Object.entries(s.dataFlow?.gaps ?? {})) {
      perTask[task] = Math.max(perTask[task] ?? 0, gap);
      sumGapMs += gap;
    }
  const idle = state.plan?.dataFlow.kind === "visible" ? state.plan.dataFlow.idle.length : null;
  return {
    maxGapMs: Math.max(0, ...Object.values(perTask)),
    sumGapMs,
    tasksMeasured: Object.keys(perTask).length,
    tasksIdle: idle ?? Math.max(0, ...seen.map((s) => s.dataFlow?.idle ?? 0)),
    perTask,
  };
}
