import type { StepWindow } from "../../../src/core/plan/plan-types.js";
import {
  ROLLOUT_STATE_VERSION,
  type RolloutState,
  type StepRecord,
} from "../../../src/core/rollout/rollout-state.js";
import { pendingStep } from "../../../src/core/rollout/step-helpers.js";
import { EMPTY_FLOW_TRACK } from "../../../src/core/settle/track-flow.js";
import { resolvedSettings } from "../../support/rollout-settings.js";
import { planFor } from "./plan-fixture.js";

/** Where `aRollout` (rollout-state-builder.ts) starts: its clock, its options, the rollout before step 1. */

/** 2024-05-01 14:00:00 UTC: every builder time is an offset from here. */
export const T0 = Date.UTC(2024, 4, 1, 14, 0, 0);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
/** Each step starts this long after the previous one. */
const STEP_SPACING = 6 * MINUTE;

export interface RolloutOptions {
  cluster?: string;
  workers?: number;
  from?: string;
  /** A version, or "restart" for a rolling restart. */
  to?: string;
  requestedBy?: string;
  jobId?: string;
  eagerWindows?: readonly StepWindow[];
  /** Worker names; default connect-1 … connect-N (the last one is the leader). */
  names?: readonly string[];
}

/** When step `n` (from 1) is started by the builder. */
export function stepStart(n: number): number {
  return T0 + MINUTE + (n - 1) * STEP_SPACING;
}

/** The rollout planned, before step 1: every step pending, the last worker the leader. */
export function initialRolloutState(options: RolloutOptions): RolloutState {
  const count = options.names?.length ?? options.workers ?? 6;
  const names = options.names ?? Array.from({ length: count }, (_, i) => `connect-${i + 1}`);
  const from = options.from ?? "3.6.1";
  const to = options.to ?? "3.7.1";
  const cluster = options.cluster ?? "prod-cluster";
  const target =
    to === "restart"
      ? { kind: "restart" as const, version: from, argument: "restart" }
      : { kind: "upgrade" as const, version: to, argument: `v${to}` };
  const steps: StepRecord[] = names.map((worker, i) =>
    pendingStep({
      step: i + 1,
      worker,
      workerId: `${worker}:8083`,
      url: `http://${worker}:8083`,
      isLeader: i === names.length - 1,
      fromVersion: from,
    }),
  );
  return {
    v: ROLLOUT_STATE_VERSION,
    jobId: options.jobId ?? "job-01HX",
    cluster,
    target,
    image: null,
    requestedBy: options.requestedBy ?? "U123",
    startedAt: T0,
    updatedAt: T0 + MINUTE,
    finishedAt: null,
    settings: resolvedSettings({
      planPolicy: {
        connectProtocol: null,
        scheduledRebalanceMaxDelayMs: 300_000,
        expectedRestartMs: 45_000,
      },
      gatePolicy: {},
      pollIntervalMs: 5000,
      delayMs: 300_000,
      sessionTimeoutMs: 10_000,
      expectedRestartMs: 45_000,
      workerReturnMs: 600_000,
    }),
    phase: { kind: "before-step", step: 1 },
    plan: planFor(cluster, target, steps, options.eagerWindows ?? [], T0),
    steps,
    freeze: {},
    approvals: [],
    granted: [],
    pendingControl: null,
    track: { at: null, epoch: null, lastWorker: {}, down: [], eager: false },
    seq: 0,
    openWindow: null,
    timeline: [],
    flow: EMPTY_FLOW_TRACK,
  };
}
