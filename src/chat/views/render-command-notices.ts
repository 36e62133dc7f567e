import type { SlackMessage } from "../slack-web-api.js";
import { escapeMrkdwn } from "./limits.js";
import { notice } from "./notice.js";

/** What the command listener answers before (or instead of) a subcommand's answer. */

export function renderRestarting(): SlackMessage {
  return notice("connect-roll is restarting", ["Try again in a few seconds."]);
}

export function renderNotParsed(message: string, hint: string): SlackMessage {
  return notice(`That command did not parse: ${escapeMrkdwn(message)}`, [
    "Usage:",
    ...hint.split("\n").map((l) => `\`${escapeMrkdwn(l)}\``),
  ]);
}

/** A subcommand threw; `why` is an `AppError`'s message, null for an internal error. */
export function renderCommandFailed(why: string | null): SlackMessage {
  return notice("Something went wrong", [
    `${why === null ? "an internal error" : escapeMrkdwn(why)}. Nothing was started; try again, or check the bot's logs.`,
  ]);
}
