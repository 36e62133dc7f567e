import type { StepDisruption } from "./plan-types.js";

/** Allowance for one rebalance plus task start-up, added wherever tasks are (re)started. */
export const REBALANCE_ALLOWANCE_MS = 5_000;
/** Allowance for the settle gate after a step when its settings are not known (quiet period and identical polls). */
export const SETTLE_ALLOWANCE_MS = 30_000;

export interface StepCostInput {
  readonly isLeader: boolean;
  /** Some rebalance of the step runs eager (stop-the-world). */
  readonly eager: boolean;
  /** Tasks the worker holds. */
  readonly tasks: number;
  readonly totalTasks: number;
  readonly workers: number;
  readonly delayMs: number;
  readonly restartMs: number;
  /** The assignor reassigns lost work at once when the delay is 0 (KAFKA-15693). */
  readonly zeroDelayReassigns: boolean;
  /** How long this follower's tasks wait for the deadline (pace `window`: less than the delay). Default: the delay. */
  readonly heldMs?: number;
  /** The settle gate's cost after the step (default SETTLE_ALLOWANCE_MS). */
  readonly settleMs?: number;
}

export interface StepCost {
  readonly disruption: StepDisruption;
  readonly downtimeMs: number;
  readonly taskDowntimeMs: number;
  readonly moves: number;
  readonly interruptions: number;
  readonly wallMs: number;
}

/**
 * Predicted disruption of one step (docs/connect-behaviour.md#the-scheduled-rebalance-delay, #the-leader,
 * #leaving-eager).
 */
export function predictStepCost(input: StepCostInput): StepCost {
  const { tasks, totalTasks, workers, delayMs, restartMs } = input;
  const rb = REBALANCE_ALLOWANCE_MS;
  const settle = input.settleMs ?? SETTLE_ALLOWANCE_MS;
  const bounceWall = restartMs + 2 * rb + settle;
  /** The worker's tasks wait for it (or for the deadline), nothing moves. */
  const held = (downMs: number, wallMs = bounceWall): StepCost => ({
    disruption: "held",
    downtimeMs: downMs,
    taskDowntimeMs: tasks * downMs,
    moves: 0,
    interruptions: 0,
    wallMs,
  });
  if (workers <= 1) return held(restartMs + rb);
  const share = Math.min(tasks, Math.floor(totalTasks / workers));
  if (input.eager) {
    const interruptions = Math.max(0, totalTasks - tasks) + Math.max(0, totalTasks - share);
    return {
      disruption: "eager",
      downtimeMs: 2 * rb,
      taskDowntimeMs: 2 * totalTasks * rb,
      moves: tasks + share,
      interruptions,
      wallMs: bounceWall,
    };
  }
  const reassigned = (disruption: StepDisruption, firstDownMs: number): StepCost => ({
    disruption,
    downtimeMs: firstDownMs,
    taskDowntimeMs: tasks * firstDownMs + share * rb,
    moves: tasks + share,
    interruptions: share,
    wallMs: bounceWall,
  });
  if (input.isLeader) return reassigned("leader", rb);
  if (delayMs === 0 && input.zeroDelayReassigns) return reassigned("reassigned", rb);
  // Before KAFKA-15693 lost work waits for an unrelated rebalance: this is a lower bound (a finding says so).
  if (delayMs === 0) return held(restartMs + rb);
  if (restartMs >= delayMs) return reassigned("reassigned", delayMs + rb);
  return held((input.heldMs ?? delayMs) + rb, delayMs + rb + settle);
}
