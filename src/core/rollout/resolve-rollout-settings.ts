import type { PlanPolicy } from "../plan/plan-types.js";
import { resolvePlanPolicy } from "../plan/resolve-plan-policy.js";
import { resolveGatePolicy } from "../settle/resolve-gate-policy.js";
import type { GatePolicy } from "../settle/settle-types.js";
import type { RolloutSettings } from "./rollout-state.js";

/**
 * Settings as they enter core: the planner's and the gate's policies with their optional fields, as the composition
 * root builds them from a cluster's configuration (and as checkpoints written before settings were resolved hold
 * them).
 */
export interface RolloutSettingsInput {
  readonly planPolicy: PlanPolicy;
  readonly gatePolicy: GatePolicy;
  readonly pollIntervalMs: number;
  readonly delayMs: number;
  readonly sessionTimeoutMs: number;
  readonly expectedRestartMs: number;
  readonly backTimeoutMs: number;
}

/**
 * The one place a rollout's defaults are filled in (`resolvePlanPolicy`, `resolveGatePolicy`): the state machine only
 * ever sees resolved settings. Idempotent, so a checkpoint's settings may be resolved again when read back.
 */
export function resolveRolloutSettings(input: RolloutSettingsInput): RolloutSettings {
  return {
    planPolicy: resolvePlanPolicy(input.planPolicy),
    gatePolicy: resolveGatePolicy(input.gatePolicy),
    pollIntervalMs: input.pollIntervalMs,
    delayMs: input.delayMs,
    sessionTimeoutMs: input.sessionTimeoutMs,
    expectedRestartMs: input.expectedRestartMs,
    backTimeoutMs: input.backTimeoutMs,
  };
}
