import type { Plan, PlanStep } from "../../src/core/plan/plan-types.js";
import { resolvePlanPolicy } from "../../src/core/plan/resolve-plan-policy.js";
import type { ApprovalRecord } from "../../src/core/rollout/approval-types.js";
import { beginRollout } from "../../src/core/rollout/decide.js";
import type { RolloutState, StepRecord, TimelinePoint } from "../../src/core/rollout/rollout-state.js";
import { resolveGatePolicy } from "../../src/core/settle/resolve-gate-policy.js";

/**
 * A rollout's checkpoint written out by hand, for the chart's tests and its benchmark: `workers` steps (the leader
 * last), the followers grouped in pace windows of `windowSize` (1: no windows), optionally an eager window over the
 * first `eagerSteps`, each restart taking `restartMs`, a window's gate passing `settleMs` after its last worker is
 * back, a timeline point every `pollMs`, and, with `runningAtStep`, a rollout stopped while that step is down.
 * Only what the chart reads is filled in; the plan holds the fields that place steps in windows.
 */
export interface SyntheticRolloutOptions {
  readonly workers: number;
  readonly windowSize?: number;
  readonly eagerSteps?: number;
  readonly restartMs?: number;
  readonly settleMs?: number;
  readonly delayMs?: number;
  readonly pollMs?: number;
  readonly tasksPerWorker?: number;
  readonly approvedBy?: string;
  readonly runningAtStep?: number;
}

export const SYNTHETIC_START = Date.UTC(2026, 0, 15, 9, 0, 0);

export function syntheticRollout(o: SyntheticRolloutOptions): RolloutState {
  const restartMs = o.restartMs ?? 10_000;
  const settleMs = o.settleMs ?? 12_000;
  const delayMs = o.delayMs ?? 60_000;
  const windowSize = Math.max(1, o.windowSize ?? 1);
  const eagerSteps = o.eagerSteps ?? 0;
  const tasksPerWorker = o.tasksPerWorker ?? 3;
  const base = beginRollout({
    jobId: "cr-synthetic",
    cluster: "prod-connect",
    target: { kind: "upgrade", version: "3.9.1", argument: "v3.9.1" },
    image: null,
    requestedBy: "U0ALICE",
    settings: {
      planPolicy: resolvePlanPolicy({
        connectProtocol: null,
        scheduledRebalanceMaxDelayMs: delayMs,
        expectedRestartMs: restartMs,
      }),
      gatePolicy: resolveGatePolicy({}),
      pollIntervalMs: o.pollMs ?? 2_000,
      delayMs,
      sessionTimeoutMs: 10_000,
      expectedRestartMs: restartMs,
      workerReturnMs: 300_000,
    },
    now: SYNTHETIC_START,
  }).state;

  const names = Array.from({ length: o.workers }, (_, i) => `worker-${i + 1}`);
  const followers = o.workers - 1;
  // Window index of each follower step (eager steps and the leader stand alone).
  const windowOf = (step: number): number | null =>
    step > eagerSteps && step <= followers && windowSize > 1
      ? Math.floor((step - eagerSteps - 1) / windowSize)
      : null;
  const approvals: ApprovalRecord[] = [];
  const steps: StepRecord[] = [];
  let t = SYNTHETIC_START + 8_000;
  if (eagerSteps > 0) {
    approvals.push({
      id: "a1",
      kind: "eager-window",
      step: 1,
      decision: "approve",
      by: o.approvedBy ?? "U0BOB",
      at: t,
    });
    t += 4_000;
  }
  let finishedAt: number | null = null;
  for (let step = 1; step <= o.workers; step += 1) {
    const running = o.runningAtStep !== undefined && step >= o.runningAtStep;
    const issued = t;
    const back = issued + restartMs;
    const window = windowOf(step);
    const inEager = step <= eagerSteps;
    const closes =
      step === o.workers ||
      (inEager ? step === eagerSteps : window === null || windowOf(step + 1) !== window);
    const windowStart =
      steps.find((s) => windowOf(s.step) === window && window !== null)?.restartIssuedAt ?? issued;
    const settled = closes
      ? Math.max(back + settleMs, window === null ? 0 : windowStart + delayMs + 2_000)
      : back;
    const isRunningStep = running && step === o.runningAtStep;
    steps.push({
      step,
      worker: names[step - 1] ?? `worker-${step}`,
      workerId: `127.0.0.1:${8083 + step}`,
      url: `http://127.0.0.1:${8083 + step}`,
      isLeader: step === o.workers,
      fromVersion: "3.8.1",
      status: running ? (isRunningStep ? "restarting" : "pending") : "settled",
      attempts: running && !isRunningStep ? 0 : 1,
      restartIssuedAt: running && !isRunningStep ? null : issued,
      restartDetail: null,
      backAt: running ? null : back,
      backVersion: running ? null : "3.9.1",
      settledAt: running ? null : settled,
      gate: [],
      note: !running && !closes ? { kind: "crossed-in-window" } : null,
      measurements: {
        restartMs,
        settleMs: settled - back,
        tasksMoved: 0,
        taskDowntimeMs: 0,
        rebalances: 1,
        eagerRebalances: 0,
        polls: 4,
      },
      dataFlow: null,
    });
    if (running) continue;
    t = settled;
    if (step === o.workers) finishedAt = settled;
  }
  const end = finishedAt ?? t + restartMs / 2;
  const total = o.workers * tasksPerWorker;
  const timeline: TimelinePoint[] = [];
  // A step crossed inside a window has its tasks held until the window's gate: the next step not crossed settles it.
  const heldUntil = steps.map((_s, i) => steps.slice(i).find((n) => n.note === null)?.settledAt ?? end + 1);
  for (let at = SYNTHETIC_START; at <= end; at += o.pollMs ?? 2_000) {
    const downWorkers = steps.filter(
      (s, i) => s.restartIssuedAt !== null && s.restartIssuedAt <= at && (heldUntil[i] ?? end + 1) > at,
    ).length;
    const down = Math.min(total, downWorkers * tasksPerWorker);
    timeline.push({ at, down, notFlowing: down, total });
  }
  const planSteps = steps.map(
    (s) => ({ step: s.step, worker: s.worker, window: windowOf(s.step) }) as PlanStep,
  );
  const windowCount = Math.max(-1, ...planSteps.map((p) => p.window ?? -1)) + 1;
  const plan = {
    steps: planSteps,
    eagerWindows: eagerSteps > 0 ? [{ fromStep: 1, toStep: eagerSteps }] : [],
    windows: Array.from({ length: windowCount }, (_, w) => ({
      steps: planSteps.filter((p) => p.window === w).map((p) => p.step),
      predictedHeldShare: 0,
      predictedDeadlineMs: delayMs,
    })),
  } as unknown as Plan;
  return {
    ...base,
    updatedAt: end,
    finishedAt,
    phase:
      finishedAt === null
        ? { kind: "restarting", step: o.runningAtStep ?? 1, stepId: "s", baseline: {} as never }
        : { kind: "finished", result: "succeeded", reason: { kind: "all-settled" } },
    plan,
    steps,
    approvals,
    timeline,
  };
}
