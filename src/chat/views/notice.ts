import type { SlackThread } from "../../jobs/store/job-record.js";
import type { SlackMessage } from "../slack-web-api.js";

/** An ephemeral message in mrkdwn: a bold title, then lines. Lines must already be escaped (mentions stay mentions). */
export function notice(title: string, lines: readonly string[] = []): SlackMessage {
  const text = [`*${title}*`, ...lines].join("\n").slice(0, 2900);
  return { text: title, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
}

/** A link to a thread that works in any client. */
export function threadLink(thread: SlackThread): string {
  return `<https://slack.com/archives/${thread.channel}/p${thread.ts.replace(".", "")}|thread in <#${thread.channel}>>`;
}
