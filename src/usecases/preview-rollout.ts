import type { Logger } from "pino";
import type { ClusterConfig } from "../config/schema.js";
import { isAppError } from "../core/errors.js";
import type { Plan, RolloutPace, RolloutTarget } from "../core/plan/plan-types.js";
import type { Requester } from "./access.js";
import { checkTarget, type RequestPolicy, type TargetRefusal } from "./prepare-rollout.js";
import { type PlanFailed, type Refused, refused } from "./refusals.js";

export interface PreviewDeps extends RequestPolicy {
  /** Reads the cluster and plans (the composition root's reader and `planRollout`). */
  readonly planFor: (
    name: string,
    cluster: ClusterConfig,
    target: RolloutTarget,
    pace?: RolloutPace,
  ) => Promise<Plan>;
  readonly logger: Logger;
}

export type PreviewRefusal = TargetRefusal | PlanFailed;
export type PreviewResult = { readonly kind: "planned"; readonly plan: Plan } | Refused<PreviewRefusal>;

/**
 * The dry run a requester may ask for (`plan`): the same checks as a rollout but the change window (a plan restarts
 * nothing), then one read of the cluster and its plan.
 */
export async function previewRollout(
  deps: PreviewDeps,
  request: { readonly cluster: string; readonly argument: string; readonly requester: Requester },
): Promise<PreviewResult> {
  const checked = await checkTarget(deps, request);
  if (checked.kind === "refused") return checked;
  try {
    return {
      kind: "planned",
      plan: await deps.planFor(request.cluster, checked.clusterConfig, checked.target),
    };
  } catch (err) {
    if (!isAppError(err)) throw err;
    deps.logger.warn({ err, cluster: request.cluster }, "plan failed");
    return refused({ kind: "plan-failed", cluster: request.cluster, message: err.message });
  }
}
