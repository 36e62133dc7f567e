import type { ControlRefusal } from "../usecases/control-rollout.js";
import type { PrepareRefusal } from "../usecases/prepare-rollout.js";
import type { LockFacts, NoRollback } from "../usecases/refusals.js";

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

/** Why there is nothing to roll back: what the cluster's newest rollout record shows, and what to do instead. */
export function noRollbackText(reason: NoRollback): string {
  const { cluster, why } = reason;
  switch (why.kind) {
    case "no-rollout":
      return `no rollout of ${cluster} is on record in the job store: nothing to roll back`;
    case "not-an-upgrade":
      return `${cluster}'s last rollout (job ${why.jobId}) was a plain restart: it changed no version, so there is nothing to roll back`;
    case "not-finished":
      return `${cluster}'s last rollout (job ${why.jobId}) is not over (${why.status}): abort it first (connect-roll abort ${cluster}), then roll back`;
    case "nothing-moved":
      return `${cluster}'s last rollout (job ${why.jobId}) moved no worker to ${why.version}: nothing to roll back`;
    case "unknown-from":
      return `${cluster}'s last rollout (job ${why.jobId}) did not read the version ${why.workers.join(", ")} ran before: roll ${why.workers.length === 1 ? "it" : "them"} back by hand (connect-roll run ${cluster} VERSION)`;
    case "mixed-from":
      return `${cluster}'s last rollout (job ${why.jobId}) moved workers from different versions (${why.versions.map((v) => `${v.worker} ${v.version}`).join(", ")}): one rollback returns workers to one version; use connect-roll run ${cluster} VERSION`;
  }
}
