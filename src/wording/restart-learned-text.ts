import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type { RolloutEvent } from "../core/rollout/rollout-io.js";

type RestartLearned = Extract<RolloutEvent, { kind: "restart-learned" }>;

/** The one line that says the remaining pace windows were planned again, and why. */
export function restartLearnedText(e: RestartLearned): string {
  const measured = e.samples === 1 ? "the restart measured" : `${plural(e.samples, "restart")} measured`;
  const windows =
    e.followersPerWindowBefore === e.followersPerWindowAfter
      ? `still ${plural(e.followersPerWindowAfter, "follower")} per window`
      : `${plural(e.followersPerWindowAfter, "follower")} per window instead of ${e.followersPerWindowBefore}`;
  return `Restarts take about ${formatDuration(e.learnedMs)} here, not the declared ${formatDuration(e.declaredMs)} (${measured}): the remaining pace windows are planned again with ${formatDuration(e.learnedMs)}, ${windows}.`;
}
