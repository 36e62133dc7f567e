import type { BlockButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { Logger } from "pino";
import type { SlackMessage, SlackWebApi } from "../../slack-web-api.js";

/**
 * Who clicked, in which channel, and how to answer them: an ephemeral message only they see, in the clicked message's
 * thread. Best effort: an answer Slack refuses is logged, never thrown.
 */
export function clickReply(
  body: SlackActionMiddlewareArgs<BlockButtonAction>["body"],
  api: SlackWebApi,
  log: Logger,
): { readonly userId: string; readonly channel: string | undefined; tell(m: SlackMessage): Promise<void> } {
  const userId = body.user.id;
  const found = body.channel?.id ?? body.container.channel_id;
  const channel = typeof found === "string" ? found : undefined;
  const threadTs = body.message?.thread_ts ?? body.message?.ts;
  return {
    userId,
    channel,
    async tell(m) {
      if (channel === undefined) return;
      await api
        .postEphemeral({ channel, user: userId, ...m, ...(typeof threadTs === "string" ? { threadTs } : {}) })
        .catch((err: unknown) => log.error({ err }, "could not answer a click"));
    },
  };
}
