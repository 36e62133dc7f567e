import { formatDuration } from "../../core/format-duration.js";
import type { SlackMessage } from "../slack-web-api.js";
import { escapeMrkdwn } from "./limits.js";
import { notice } from "./notice.js";

/** What the requester is told while a rollout starts, and when it could not. */

export function renderStarting(cluster: string, argument: string): SlackMessage {
  return notice(`Starting the rollout of ${cluster} to ${escapeMrkdwn(argument)}…`, [
    "Progress will be in a thread in this channel.",
  ]);
}

/** Slack refused the thread's parent (`slackError`): nothing was started. */
export function renderParentRefused(slackError: string): SlackMessage {
  return slackError === "not_in_channel" || slackError === "channel_not_found"
    ? notice("I am not in this channel", [
        `Invite me with \`/invite @connect-roll\`, then run the command again. Nothing was started.`,
      ])
    : notice("Slack refused the thread message", [`(${escapeMrkdwn(slackError)}) Nothing was started.`]);
}

export function renderParentTooSlow(waitedMs: number): SlackMessage {
  return notice("Slack is too slow right now", [
    `The rollout's thread was not posted within ${formatDuration(waitedMs)}, and a rollout only starts with its thread. Nothing was started; try again in a few minutes.`,
  ]);
}

/** The job could not be recorded; `why` is an `AppError`'s message, null for an internal error. */
export function renderCouldNotStart(why: string | null): SlackMessage {
  return notice("The rollout could not start", [
    why === null ? "internal error" : escapeMrkdwn(why),
    "Try again in a minute.",
  ]);
}
