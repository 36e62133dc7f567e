import {
  type ApprovalFacts,
  type ApprovalRecord,
  approvalKindOf,
  type Decision,
  type PendingApproval,
} from "../../../src/core/rollout/approval-types.js";
import type { FinishReason, SkipReason } from "../../../src/core/rollout/rollout-reasons.js";
import type {
  Phase,
  RolloutResult,
  RolloutState,
  StepDataFlow,
  StepMeasurements,
  StepRecord,
} from "../../../src/core/rollout/rollout-state.js";
import { NO_MEASUREMENTS } from "../../../src/core/rollout/step-helpers.js";
import type { Baseline, GateReason } from "../../../src/core/settle/settle-types.js";
import {
  initialRolloutState,
  MINUTE,
  type RolloutOptions,
  SECOND,
  stepStart,
  T0,
} from "./rollout-state-start.js";

export { MINUTE, type RolloutOptions, SECOND, stepStart, T0 } from "./rollout-state-start.js";

const RESTART_MS = 42 * SECOND;
const SETTLE_MS = 4 * MINUTE + 20 * SECOND;

/**
 * Fluent builder of `RolloutState`s for view tests:
 * `aRollout({ workers: 6 }).settled(1).settled(2).settling(3, [heldReason(14, 130_000)]).build()`.
 * Steps are numbered from 1; the last worker is the leader. Each call returns the builder (immutable state inside).
 */
export function aRollout(options: RolloutOptions = {}): RolloutStateBuilder {
  return new RolloutStateBuilder(options);
}

export class RolloutStateBuilder {
  private state: RolloutState;

  constructor(options: RolloutOptions) {
    this.state = initialRolloutState(options);
  }

  /** Planning: no plan and no steps yet. */
  planning(): this {
    this.state = { ...this.state, phase: { kind: "planning" }, plan: null, steps: [] };
    return this;
  }

  step(n: number, patch: Partial<StepRecord>): this {
    this.state = {
      ...this.state,
      steps: this.state.steps.map((s) => (s.step === n ? { ...s, ...patch } : s)),
    };
    return this;
  }

  phase(phase: Phase, updatedAt?: number): this {
    this.state = { ...this.state, phase, updatedAt: updatedAt ?? this.state.updatedAt };
    return this;
  }

  with(patch: Partial<RolloutState>): this {
    this.state = { ...this.state, ...patch };
    return this;
  }

  restartIssued(n: number): this {
    const at = stepStart(n);
    this.step(n, { status: "restart-issued", attempts: 1, restartIssuedAt: at });
    return this.phase(
      { kind: "restarting", step: n, stepId: `${this.state.jobId}:${n}:1`, baseline: this.baseline(n) },
      at,
    );
  }

  waitingBack(n: number, detail = "pod connect-x deleted; StatefulSet recreates it"): this {
    this.restartIssued(n).step(n, {
      status: "waiting-back",
      restartDetail: detail.replace("connect-x", this.worker(n)),
    });
    const at = stepStart(n) + 2 * SECOND;
    return this.phase(
      { kind: "waiting-back", step: n, since: at, seenDown: true, baseline: this.baseline(n) },
      at,
    );
  }

  settling(n: number, reasons: readonly GateReason[], measurements: Partial<StepMeasurements> = {}): this {
    this.waitingBack(n);
    const backAt = stepStart(n) + RESTART_MS;
    this.step(n, {
      status: "settling",
      backAt,
      backVersion: this.targetVersion(n),
      gate: reasons,
      measurements: { ...NO_MEASUREMENTS, restartMs: RESTART_MS, polls: 4, ...measurements },
    });
    return this.phase(
      { kind: "settling", step: n, baseline: this.baseline(n), stable: null, askSlowAfter: null },
      backAt + 30 * SECOND,
    );
  }

  settled(n: number, measurements: Partial<StepMeasurements> = {}): this {
    this.settling(n, []);
    const settledAt = stepStart(n) + RESTART_MS + SETTLE_MS;
    this.step(n, {
      status: "settled",
      settledAt,
      gate: [],
      measurements: {
        ...NO_MEASUREMENTS,
        restartMs: RESTART_MS,
        settleMs: SETTLE_MS,
        taskDowntimeMs: 4 * MINUTE + 58 * SECOND,
        polls: 40,
        rebalances: 2,
        ...measurements,
      },
    });
    return this.phase({ kind: "before-step", step: n + 1 }, settledAt);
  }

  /** Settles steps 1..n. */
  settledThrough(n: number, measurements: Partial<StepMeasurements> = {}): this {
    for (let i = 1; i <= n; i++) this.settled(i, measurements);
    return this;
  }

  skipped(n: number, reason: SkipReason = { kind: "on-target", version: "3.7.1" }): this {
    this.step(n, { status: "skipped", note: reason });
    return this.phase({ kind: "before-step", step: n + 1 });
  }

  continued(n: number, by: string, reasons: readonly GateReason[]): this {
    this.settling(n, reasons);
    const at = stepStart(n) + 5 * MINUTE;
    this.decided({
      id: `${this.state.jobId}:a${n}`,
      kind: "gate-failed",
      step: n,
      decision: "continue",
      by,
      at,
    });
    this.step(n, { status: "continued", note: { kind: "continued", by }, settledAt: at });
    return this.phase({ kind: "before-step", step: n + 1 }, at);
  }

  /** The restart failed with the executor's `error`. */
  failed(n: number, error: string): this {
    this.restartIssued(n).step(n, { status: "failed", note: { kind: "restart-failed", error } });
    return this;
  }

  /** Asks about `facts` (its kind follows from them), at step 1 unless `approval` says otherwise. */
  awaiting(facts: ApprovalFacts, approval: Partial<Omit<PendingApproval, "facts" | "kind">> = {}): this {
    const step = approval.step === undefined ? 1 : approval.step;
    const full: PendingApproval = {
      id: `${this.state.jobId}:a${this.state.seq + 1}`,
      kind: approvalKindOf(facts),
      step,
      options: ["approve", "abort"],
      askedAt: step === null ? T0 + MINUTE : stepStart(step),
      ...approval,
      facts,
    };
    this.state = { ...this.state, seq: this.state.seq + 1 };
    return this.phase(
      { kind: "awaiting-approval", approval: full, resume: { kind: "step-done", step: step ?? 1 } },
      full.askedAt,
    );
  }

  /** Data flow visible: the plan learned `flowing` tasks and `idle`; step n's tasks had these gaps (and lag). */
  dataFlow(n: number, gaps: Readonly<Record<string, number>>, lag: StepDataFlow["lag"] = []): this {
    const plan = this.state.plan;
    if (plan !== null && plan.dataFlow.kind !== "visible")
      this.state = {
        ...this.state,
        plan: { ...plan, dataFlow: { kind: "visible", flowing: 22, idle: ["audit/0", "audit/1"] } },
      };
    return this.step(n, { dataFlow: { gaps, idle: 2, peakLag: {}, lag } });
  }

  decided(record: ApprovalRecord): this {
    this.state = { ...this.state, approvals: [...this.state.approvals, record] };
    return this;
  }

  paused(n: number, by: string): this {
    const at = stepStart(n) - 30 * SECOND;
    return this.phase({ kind: "paused", step: n, by, at }, at);
  }

  finished(result: RolloutResult, reason: FinishReason, at?: number): this {
    const finishedAt = at ?? this.state.updatedAt + 10 * SECOND;
    this.state = { ...this.state, finishedAt };
    return this.phase({ kind: "finished", result, reason }, finishedAt);
  }

  build(): RolloutState {
    return this.state;
  }

  private worker(n: number): string {
    return this.state.steps[n - 1]?.worker ?? `worker-${n}`;
  }

  private targetVersion(n: number): string {
    return this.state.target.kind === "upgrade"
      ? this.state.target.version
      : (this.state.steps[n - 1]?.fromVersion ?? "");
  }

  private baseline(n: number): Baseline {
    const step = this.state.steps[n - 1];
    const worker = step?.worker ?? `worker-${n}`;
    return {
      snapshot: {
        cluster: this.state.cluster,
        readAt: stepStart(n),
        workers: [],
        connectors: [],
        connectorsError: null,
      },
      step: n,
      worker: { name: worker, workerId: `${worker}:8083`, url: `http://${worker}:8083` },
      targetVersion: this.targetVersion(n),
      stopIssuedAt: stepStart(n),
      stopMode: "graceful",
      isLeader: step?.isLeader ?? false,
      heldWork: true,
      workerTasks: [],
      delayDeadline: step?.isLeader ? null : stepStart(n) + 300_000,
      flow: null,
    };
  }
}

export function decision(
  n: number,
  decisionKind: Decision,
  by = "U2",
  at = stepStart(n) + 20 * SECOND,
): ApprovalRecord {
  return { id: `job-01HX:a${n}`, kind: "eager-window", step: n, decision: decisionKind, by, at };
}

/** The gate's held-by-scheduled-delay reason, worded like `detectHeldTasks`. */
export function heldReason(worker: string, tasks: number, remainingMs: number): GateReason {
  const mins = Math.floor(remainingMs / MINUTE);
  const secs = Math.round((remainingMs % MINUTE) / SECOND);
  return {
    code: "held-by-scheduled-delay",
    worker,
    heldTasks: Array.from({ length: tasks }, (_, i) => `orders-sink/${i}`),
    remainingMs,
    message: `${tasks} tasks of ${worker} held by the scheduled delay: ${mins}m${String(secs).padStart(2, "0")}s left`,
  };
}
