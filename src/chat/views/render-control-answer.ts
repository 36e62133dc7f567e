import type { ControlAnswer } from "../../usecases/control-rollout.js";
import type { SlackMessage } from "../slack-web-api.js";
import { notice, threadLink } from "./notice.js";
import { renderChannelNotAllowed, renderUnknownCluster } from "./render-refusal-notices.js";

const REQUESTED = {
  abort: "Abort requested: no further worker will be restarted",
  pause: "Pause requested: it stops before the next restart",
  resume: "Resume requested",
} as const;

/** The answer to `pause`, `resume` or `abort`: what was requested and where to follow it, or why not. */
export function renderControlAnswer(result: ControlAnswer, name: string): SlackMessage {
  if (result.kind === "requested")
    return notice(
      `${REQUESTED[result.action]} (${result.cluster})`,
      result.thread ? [`See the ${threadLink(result.thread)}.`] : [],
    );
  const reason = result.reason;
  switch (reason.kind) {
    case "channel-not-allowed":
      return renderChannelNotAllowed(reason);
    case "unknown-cluster":
      return renderUnknownCluster(reason, name);
    case "outside-change-window":
      return notice(`Outside the change windows of ${reason.cluster}`, [
        `The rollout stays paused; resume it after ${reason.next}.`,
      ]);
    case "not-authorized":
      return notice("You may not do that", [reason.reason]);
    case "no-active-rollout":
      return notice(`No rollout of ${reason.cluster} is running`, [
        `Start one with \`${name} ${reason.cluster} <version|restart>\`.`,
      ]);
    case "rollout-finished":
      return notice(`The rollout of ${reason.cluster} is already over (${reason.status})`);
  }
}
