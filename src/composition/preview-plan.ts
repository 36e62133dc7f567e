import { setTimeout as delay } from "node:timers/promises";
import type { ClusterReader } from "../connect/cluster-reader.js";
import { dataFlowOf, planRollout } from "../core/plan/plan-rollout.js";
import type { Plan, PlanDataFlow, RolloutTarget } from "../core/plan/plan-types.js";
import type { RolloutSettings } from "../core/rollout/rollout-state.js";
import { learnBaselineFlow } from "../core/settle/assess-flow.js";
import { EMPTY_FLOW_TRACK, trackFlow } from "../core/settle/track-flow.js";

/**
 * The dry run's plan (`plan`, `/connect-roll plan`): one read of the cluster, and where the per-task metrics show
 * data flow, a second read the flow window later, so the plan can say which tasks move data and which are idle, as
 * the rollout's own plan does.
 */
export async function previewPlan(
  reader: ClusterReader,
  target: RolloutTarget,
  settings: RolloutSettings,
  signal?: AbortSignal,
): Promise<Plan> {
  const first = await reader.read(signal);
  const window = settings.gatePolicy.flowWindowMs;
  let track = trackFlow(EMPTY_FLOW_TRACK, first).track;
  if (!track.visible) return planRollout(first, target, settings.planPolicy, dataFlowOf(first));
  await delay(window, undefined, signal === undefined ? {} : { signal });
  const second = await reader.read(signal);
  track = trackFlow(track, second).track;
  const learning = learnBaselineFlow(track, second.readAt, window);
  const dataFlow: PlanDataFlow =
    learning.kind === "learned"
      ? { kind: "visible", flowing: learning.flow.flowing.length, idle: learning.flow.idle }
      : dataFlowOf(second);
  return planRollout(second, target, settings.planPolicy, dataFlow);
}
