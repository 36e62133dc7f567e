import { suggestClusters } from "../../config/did-you-mean.js";
import type { ReadRefusal } from "../../usecases/read-status.js";
import type {
  ChannelNotAllowed,
  ClusterLocked,
  NotAuthorized,
  UnknownCluster,
  UnknownFleet,
} from "../../usecases/refusals.js";
import type { SlackMessage } from "../slack-web-api.js";
import { utcDateTime } from "./format.js";
import { escapeMrkdwn } from "./limits.js";
import { notice, threadLink } from "./notice.js";

/** The refusals several subcommands share, as ephemeral notices. `name` is the slash command (`/connect-roll`). */

export function renderChannelNotAllowed(reason: ChannelNotAllowed): SlackMessage {
  return notice("This channel is not allowed for connect-roll", [
    `Use it in ${reason.channels.map((c) => `<#${c}>`).join(", ")}.`,
  ]);
}

export function renderUnknownCluster(reason: UnknownCluster, name: string): SlackMessage {
  const close = suggestClusters(reason.cluster, reason.known);
  return notice(`Unknown cluster '${escapeMrkdwn(reason.cluster)}'`, [
    close.length > 0
      ? `Did you mean ${close.map((c) => `\`${c}\``).join(", ")}?`
      : `Known clusters: ${reason.known.map((c) => `\`${c}\``).join(", ") || "none configured"}.`,
    `Try \`${name} status\` to see what runs where.`,
  ]);
}

export function renderUnknownFleet(reason: UnknownFleet): SlackMessage {
  return notice(`Unknown fleet '${escapeMrkdwn(reason.fleet)}'`, [
    `Known fleets: ${reason.known.map((f) => `\`${f}\``).join(", ") || "none configured (fleets in the config)"}.`,
  ]);
}

/** A requester check that failed (start, plan, control). */
export function renderNotARequester(reason: NotAuthorized): SlackMessage {
  return notice("You may not do that", [reason.reason, "Ask an admin to add you to the requesters list."]);
}

/** "locked by … since …, thread", or "busy" when the lock was freed meanwhile. */
export function renderLocked(reason: ClusterLocked, name: string): SlackMessage {
  const { cluster, holder } = reason;
  if (holder === null)
    return notice(`${cluster} is busy`, ["Another rollout just started; try again in a moment."]);
  const lines = [
    `Rollout \`${holder.jobId}\`${holder.requestedBy === null ? "" : ` requested by <@${holder.requestedBy}>`} holds it since ${utcDateTime(holder.since)} (replica \`${escapeMrkdwn(holder.owner)}\`).`,
  ];
  if (holder.thread) lines.push(`Follow it in the ${threadLink(holder.thread)}.`);
  lines.push(`Wait for it to finish, or stop it with \`${name} abort ${cluster}\`.`);
  return notice(`${cluster} is locked by another rollout`, lines);
}

/** Why `status` or `history` showed nothing. */
export function renderReadRefusal(reason: ReadRefusal, name: string): SlackMessage {
  return reason.kind === "channel-not-allowed"
    ? renderChannelNotAllowed(reason)
    : renderUnknownCluster(reason, name);
}
