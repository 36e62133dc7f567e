import { randomUUID } from "node:crypto";
import { signSlackRequest } from "../chat/slack-signature.js";

/**
 * Requests exactly as Slack sends them to the bot (form-encoded, signed), for the sandbox page and the
 * end-to-end tests: a slash command, and a button click (`block_actions`, sent as `payload=<json>`).
 */
export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}

export interface SlashCommandRequestInput {
  secret: string;
  command: string;
  text: string;
  userId: string;
  userName: string;
  channelId: string;
  channelName?: string;
  teamId: string;
  teamDomain?: string;
  responseUrl: string;
  triggerId: string;
  nowSeconds: number;
  apiAppId?: string;
  /** The deprecated verification token Slack still sends; default "sandbox-verification-token". */
  token?: string;
}

/** A slash command's fields as Slack sends them (form fields over HTTP, a JSON object in a Socket Mode envelope). */
export function slashCommandFields(input: Omit<SlashCommandRequestInput, "secret">): Record<string, string> {
  return Object.fromEntries(slashCommandEntries(input));
}

export function buildSlashCommandRequest(input: SlashCommandRequestInput): SignedRequest {
  const body = new URLSearchParams(slashCommandEntries(input)).toString();
  return { headers: signedHeaders(input.secret, input.nowSeconds, body), body };
}

function slashCommandEntries(input: Omit<SlashCommandRequestInput, "secret">): [string, string][] {
  return [
    ["token", input.token ?? "sandbox-verification-token"],
    ["team_id", input.teamId],
    ["team_domain", input.teamDomain ?? "sandbox"],
    ["channel_id", input.channelId],
    ["channel_name", input.channelName ?? input.channelId],
    ["user_id", input.userId],
    ["user_name", input.userName],
    ["command", input.command],
    ["text", input.text],
    ["api_app_id", input.apiAppId ?? "A0SANDBOX"],
    ["is_enterprise_install", "false"],
    ["response_url", input.responseUrl],
    ["trigger_id", input.triggerId],
  ];
}

export interface BlockActionRequestInput {
  secret: string;
  userId: string;
  userName?: string;
  channelId: string;
  channelName?: string;
  teamId?: string;
  /** The ts of the message holding the button. */
  messageTs: string;
  /** The ts of that message's thread parent, when it is a reply. */
  threadTs?: string;
  messageText?: string;
  actionId: string;
  blockId?: string;
  value: string;
  buttonText?: string;
  responseUrl?: string;
  triggerId?: string;
  nowSeconds: number;
  apiAppId?: string;
  token?: string;
}

export function buildBlockActionRequest(input: BlockActionRequestInput): SignedRequest {
  const body = new URLSearchParams([["payload", JSON.stringify(blockActionPayload(input))]]).toString();
  return { headers: signedHeaders(input.secret, input.nowSeconds, body), body };
}

/** A button click's `block_actions` payload (in `payload=` over HTTP, as is in a Socket Mode envelope). */
export function blockActionPayload(input: Omit<BlockActionRequestInput, "secret">): Record<string, unknown> {
  const teamId = input.teamId ?? "T0SANDBOX";
  const actionTs = `${input.nowSeconds}.000100`;
  const payload = {
    type: "block_actions",
    user: {
      id: input.userId,
      username: input.userName ?? input.userId,
      name: input.userName ?? input.userId,
      team_id: teamId,
    },
    api_app_id: input.apiAppId ?? "A0SANDBOX",
    token: input.token ?? "sandbox-verification-token",
    container: {
      type: "message",
      message_ts: input.messageTs,
      channel_id: input.channelId,
      is_ephemeral: false,
    },
    trigger_id: input.triggerId ?? `${input.nowSeconds}.${randomUUID().slice(0, 8)}.sandbox`,
    team: { id: teamId, domain: "sandbox" },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: input.channelId, name: input.channelName ?? input.channelId },
    message: {
      type: "message",
      ts: input.messageTs,
      text: input.messageText ?? "",
      ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
    },
    state: { values: {} },
    response_url: input.responseUrl ?? "https://hooks.slack.com/actions/T0SANDBOX/0/sandbox",
    actions: [
      {
        action_id: input.actionId,
        block_id: input.blockId ?? "connect-roll",
        text: { type: "plain_text", text: input.buttonText ?? input.actionId, emoji: true },
        value: input.value,
        type: "button",
        action_ts: actionTs,
      },
    ],
  };
  return payload;
}

export interface EventRequestInput {
  secret: string;
  /** The inner event, e.g. `{ type: "app_home_opened", user, channel, tab: "home" }`. */
  event: Record<string, unknown>;
  teamId?: string;
  apiAppId?: string;
  nowSeconds: number;
}

/** An Events API callback (`event_callback`) as Slack sends it (a JSON object; over HTTP, signed JSON). */
export function eventCallbackPayload(input: Omit<EventRequestInput, "secret">): Record<string, unknown> {
  return {
    token: "sandbox-verification-token",
    team_id: input.teamId ?? "T0SANDBOX",
    api_app_id: input.apiAppId ?? "A0SANDBOX",
    event: { event_ts: `${input.nowSeconds}.000100`, ...input.event },
    type: "event_callback",
    event_id: `Ev${randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`,
    event_time: input.nowSeconds,
  };
}

export function buildEventRequest(input: EventRequestInput): SignedRequest {
  const body = JSON.stringify(eventCallbackPayload(input));
  return {
    headers: { ...signedHeaders(input.secret, input.nowSeconds, body), "content-type": "application/json" },
    body,
  };
}

/** The `app_home_opened` event of `user` opening the app's Home tab. */
export function appHomeOpenedEvent(user: string): Record<string, unknown> {
  return { type: "app_home_opened", user, channel: `D${user.slice(1)}`, tab: "home" };
}

function signedHeaders(secret: string, nowSeconds: number, body: string): Record<string, string> {
  return {
    "content-type": "application/x-www-form-urlencoded",
    "x-slack-request-timestamp": String(nowSeconds),
    "x-slack-signature": signSlackRequest(secret, nowSeconds, body),
  };
}
