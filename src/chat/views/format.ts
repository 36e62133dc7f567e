import { escapeMrkdwn } from "./limits.js";

/** Generic text pieces for views: mentions, UTC times, links, progress. Pure: times are passed in. */

const SLACK_USER_ID = /^[UW][A-Z0-9]+$/;

/** `<@U123>` for a Slack user id; anything else (e.g. `bot:replica-2`, a CLI user) escaped as is. */
export function mention(user: string): string {
  return SLACK_USER_ID.test(user) ? `<@${user}>` : escapeMrkdwn(user);
}

/** "14:03 UTC". */
export function utcTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

/** "2024-05-01 14:03 UTC". */
export function utcDateTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A Slack channel mention, `<#C123>`, or the id escaped when it does not look like one. */
export function channelLink(channel: string): string {
  return /^[CGD][A-Z0-9]{2,}$/.test(channel) ? `<#${channel}>` : escapeMrkdwn(channel);
}

/** A link `<url|label>` when `url` is http(s) and safe inside a link; the label alone otherwise. */
export function link(url: string | null | undefined, label: string): string {
  if (url === null || url === undefined || !/^https?:\/\/[^\s<>|]+$/.test(url)) return label;
  return `<${url.replace(/&/g, "&amp;")}|${label}>`;
}

/** "▰▰▰▱▱▱ 3/6": one cell per step up to `width` cells, scaled beyond. */
export function progressBar(done: number, total: number, width = 20): string {
  const cells = Math.min(Math.max(total, 1), width);
  const filled = total === 0 ? 0 : Math.min(cells, Math.round((done / total) * cells));
  return `${"▰".repeat(filled)}${"▱".repeat(cells - filled)} ${done}/${total}`;
}
