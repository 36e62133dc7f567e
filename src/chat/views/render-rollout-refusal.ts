import type { PrepareRefusal } from "../../usecases/prepare-rollout.js";
import type { PreviewRefusal } from "../../usecases/preview-rollout.js";
import type { SlackMessage } from "../slack-web-api.js";
import { escapeMrkdwn } from "./limits.js";
import { notice } from "./notice.js";
import {
  renderChannelNotAllowed,
  renderLocked,
  renderNotARequester,
  renderUnknownCluster,
} from "./render-refusal-notices.js";

/** Why a rollout was not started (`/connect-roll <cluster> <version>`), as an ephemeral notice that says what to do. */
export function renderPrepareRefusal(reason: PrepareRefusal, name: string): SlackMessage {
  switch (reason.kind) {
    case "channel-not-allowed":
      return renderChannelNotAllowed(reason);
    case "unknown-cluster":
      return renderUnknownCluster(reason, name);
    case "not-authorized":
      return renderNotARequester(reason);
    case "bad-version":
      return notice("That version cannot be used", [escapeMrkdwn(reason.message)]);
    case "outside-change-window":
      return notice(`${reason.cluster} is outside its change window`, [
        `The next window opens ${reason.next}. Try again then, or ask an admin about the change windows.`,
      ]);
    case "store-unreachable":
      return notice("The bot cannot reach its Redis store", [
        "Nothing was started. Try again in a minute; if it persists, tell whoever runs connect-roll (check REDIS_URL and Redis health).",
      ]);
    case "locked":
      return renderLocked(reason, name);
  }
}

/** Why `plan` gave no plan. */
export function renderPreviewRefusal(reason: PreviewRefusal, name: string): SlackMessage {
  switch (reason.kind) {
    case "plan-failed":
      return notice(`Could not plan ${reason.cluster}`, [
        escapeMrkdwn(reason.message),
        "Check that the workers' REST API is reachable from the bot.",
      ]);
    default:
      return renderPrepareRefusal(reason, name);
  }
}
