import type { RolloutEvent } from "../core/rollout/rollout-io.js";
import type { RolloutState } from "../core/rollout/rollout-state.js";
import type { RolloutSummary } from "../core/rollout/summarize.js";
import { dataFlowUnseenText } from "../wording/data-flow-text.js";
import { finishReasonText, reorderReasonText, skipReasonText } from "../wording/reason-text.js";
import { restartLearnedText } from "../wording/restart-learned-text.js";
import { clusterStateSentence } from "../wording/summary-text.js";

/**
 * What `run` prints of events and of its summary: core's facts worded (src/wording/) at this edge, so the JSON lines
 * keep their text fields (`reason`, `clusterState`) as other tools read them.
 */

/** One `run --json` line per event: the event, a reason in its words. */
export function eventJson(event: RolloutEvent): unknown {
  switch (event.kind) {
    case "step-skipped":
      return { ...event, reason: skipReasonText(event.reason) };
    case "step-reordered":
      return { ...event, reason: reorderReasonText(event.reason) };
    case "rollout-finished":
      return { ...event, reason: finishReasonText(event.reason) };
    case "data-flow-unseen":
      return { ...event, message: dataFlowUnseenText(event.workers) };
    case "restart-learned":
      return { ...event, message: restartLearnedText(event) };
    default:
      return event;
  }
}

/** The summary as `run` prints it: the reason in words (null while running) and where the cluster stands. */
export type WordedSummary = Omit<RolloutSummary, "reason"> & {
  readonly reason: string | null;
  readonly clusterState: string;
};

export function wordedSummary(summary: RolloutSummary, state: RolloutState): WordedSummary {
  const { approvals, planVsReality, ...head } = summary;
  return {
    ...head,
    reason: summary.reason === null ? null : finishReasonText(summary.reason),
    approvals,
    clusterState: clusterStateSentence(state),
    planVsReality,
  };
}
