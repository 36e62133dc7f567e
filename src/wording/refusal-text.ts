import type { ControlRefusal } from "../usecases/control-rollout.js";
import type { PrepareRefusal } from "../usecases/prepare-rollout.js";
import type { LockFacts } from "../usecases/refusals.js";

/**
 * The use-cases' refusals as one terminal line each (plain text: no mrkdwn, no mentions), for `run`, `abort` and the
 * other operator commands. Slack says the same facts as ephemeral notices with links and mentions (src/chat/views/).
 */

function lockedText(cluster: string, holder: LockFacts | null): string {
  if (holder === null)
    return `${cluster} is busy: another rollout just started or ended; try again in a moment`;
  return `${cluster} is locked by job ${holder.jobId} (${holder.owner}) since ${new Date(holder.since).toISOString()}; wait for it or check /connect-roll status`;
}

export function unknownClusterText(cluster: string, known: readonly string[]): string {
  return `unknown cluster "${cluster}" (known: ${known.join(", ") || "none"})`;
}

/** Why `run` did not start. */
export function prepareRefusalText(reason: PrepareRefusal): string {
  switch (reason.kind) {
    case "outside-change-window":
      return `${reason.cluster} is outside its change window (slack.changeWindows, or the cluster's access.changeWindows); the next window opens ${reason.next}`;
    case "locked":
      return lockedText(reason.cluster, reason.holder);
    case "store-unreachable":
      return "the job store (Redis) does not answer";
    case "unknown-cluster":
      return unknownClusterText(reason.cluster, reason.known);
    case "bad-version":
      return reason.message;
    case "channel-not-allowed":
      return "this channel is not allowed";
    case "not-authorized":
      return reason.reason;
  }
}

/** Why `abort` recorded nothing. */
export function controlRefusalText(reason: ControlRefusal): string {
  switch (reason.kind) {
    case "unknown-cluster":
      return unknownClusterText(reason.cluster, reason.known);
    case "no-active-rollout":
      return `no rollout of ${reason.cluster} is running; see connect-roll status`;
    case "rollout-finished":
      return `the rollout of ${reason.cluster} is already over (${reason.status})`;
    case "outside-change-window":
      return `${reason.cluster} is outside its change window; the next window opens ${reason.next}`;
    case "channel-not-allowed":
      return "this channel is not allowed";
    case "not-authorized":
      return reason.reason;
  }
}
