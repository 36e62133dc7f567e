import type { PlanPolicy } from "../../src/core/plan/plan-types.js";
import { resolvePlanPolicy } from "../../src/core/plan/resolve-plan-policy.js";
import type { RolloutSettings } from "../../src/core/rollout/rollout-state.js";
import { resolveGatePolicy } from "../../src/core/settle/resolve-gate-policy.js";
import type { GatePolicy } from "../../src/core/settle/settle-types.js";

/** A rollout's settings as a test writes them: the planner's and the gate's policies with their optional fields. */
export interface TestSettings extends Omit<RolloutSettings, "planPolicy" | "gatePolicy"> {
  readonly planPolicy: PlanPolicy;
  readonly gatePolicy: GatePolicy;
}

/** Every default filled in, as the composition root's `rolloutSettingsFor` fills them before settings enter core. */
export function resolvedSettings(settings: TestSettings): RolloutSettings {
  return {
    ...settings,
    planPolicy: resolvePlanPolicy(settings.planPolicy),
    gatePolicy: resolveGatePolicy(settings.gatePolicy),
  };
}
