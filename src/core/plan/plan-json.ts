import type { Finding, Plan, RolloutTarget, StepWindow } from "./plan-types.js";

/** The `plan --json` object of DESIGN §4 (those field names never change; extra fields may be added). */
export interface PlanJson {
  readonly cluster: string;
  /** What workers must report afterwards ("3.7.1"), or "restart" for a plain rolling restart. */
  readonly target: string;
  readonly targetDetail: RolloutTarget;
  readonly steps: readonly PlanJsonStep[];
  readonly eagerWindows: readonly StepWindow[];
  readonly findings: readonly Finding[];
  readonly dataFlow: Plan["dataFlow"];
  readonly leader: string | null;
  readonly compatibleWindows: readonly StepWindow[];
  readonly skipped: Plan["skipped"];
  readonly pace: Plan["pace"];
  readonly windows: Plan["windows"];
  readonly delay: Plan["delay"];
  readonly totals: Plan["totals"];
  readonly needsApproval: boolean;
  readonly notes: readonly string[];
}

export interface PlanJsonStep {
  readonly step: number;
  readonly worker: string;
  readonly isLeader: boolean;
  readonly protocolAfter: string | null;
  readonly predictedDowntimeMs: number;
  readonly predictedMoves: number;
  readonly reasons: readonly string[];
  readonly workerId: string;
  readonly fromVersion: string | null;
  readonly toVersion: string;
  readonly tasks: number;
  readonly protocolDuring: string | null;
  readonly disruption: string;
  readonly predictedTaskDowntimeMs: number;
  readonly predictedInterruptions: number;
  readonly predictedWallMs: number;
  readonly window: number | null;
}

/** A JSON-ready copy of a plan with exactly the DESIGN §4 field names (plus extra fields). */
export function toPlanJson(plan: Plan): PlanJson {
  return {
    cluster: plan.cluster,
    target: plan.target.kind === "upgrade" ? plan.target.version : "restart",
    targetDetail: plan.target,
    steps: plan.steps.map((s) => ({
      step: s.step,
      worker: s.worker,
      isLeader: s.isLeader,
      protocolAfter: s.protocolAfter,
      predictedDowntimeMs: s.predictedDowntimeMs,
      predictedMoves: s.predictedMoves,
      reasons: s.reasons,
      workerId: s.workerId,
      fromVersion: s.fromVersion,
      toVersion: s.toVersion,
      tasks: s.tasks,
      protocolDuring: s.protocolDuring,
      disruption: s.disruption,
      predictedTaskDowntimeMs: s.predictedTaskDowntimeMs,
      predictedInterruptions: s.predictedInterruptions,
      predictedWallMs: s.predictedWallMs,
      window: s.window,
    })),
    eagerWindows: plan.eagerWindows.map((w) => ({ fromStep: w.fromStep, toStep: w.toStep })),
    findings: plan.findings.map((f) => ({ severity: f.severity, code: f.code, message: f.message })),
    dataFlow: plan.dataFlow,
    leader: plan.leader.kind === "known" ? plan.leader.worker : null,
    compatibleWindows: plan.compatibleWindows,
    skipped: plan.skipped,
    pace: plan.pace,
    windows: plan.windows,
    delay: plan.delay,
    totals: plan.totals,
    needsApproval: plan.needsApproval,
    notes: plan.notes,
  };
}
