import type { AnswerRefusal } from "../../usecases/answer-approval.js";
import type { SlackMessage } from "../slack-web-api.js";
import { utcDateTime } from "./format.js";
import { notice } from "./notice.js";

/** Why a click on a prompt's button changed nothing, for an ephemeral answer to the clicker. */
export function renderAnswerRefusal(reason: AnswerRefusal): SlackMessage {
  switch (reason.kind) {
    case "job-not-found":
      return notice("This rollout cannot be found", ["It may have been cleaned up; nothing was changed."]);
    case "rollout-finished":
      return notice(`This rollout is already over (${reason.status})`, ["Nothing was changed."]);
    case "answer-not-offered":
      return notice("That answer is not offered by this prompt", ["Nothing was changed."]);
    case "not-authorized":
      return notice("You may not answer this prompt", [reason.reason, "Nothing was changed."]);
    case "already-decided":
      return notice(`Already decided by <@${reason.by}>`, [
        `${reason.decision} at ${utcDateTime(reason.at)}; your click changed nothing.`,
      ]);
    case "not-awaiting":
      return notice("This prompt is no longer waiting for an answer", [
        "The rollout has moved on; your click changed nothing.",
      ]);
  }
}

/** A button whose value does not decode (not one of ours, or tampered with). */
export function renderInvalidButton(): SlackMessage {
  return notice("This button is not valid", ["Nothing was changed."]);
}

/** The store failed while recording the click. */
export function renderClickNotRecorded(): SlackMessage {
  return notice("Your click could not be recorded", [
    "The bot could not reach its store; nothing was changed. Try again in a moment.",
  ]);
}
