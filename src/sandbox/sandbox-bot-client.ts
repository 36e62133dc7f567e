import { randomUUID } from "node:crypto";
import {
  appHomeOpenedEvent,
  buildBlockActionRequest,
  buildEventRequest,
  buildSlashCommandRequest,
  type SignedRequest,
} from "./web-api-signed-requests.js";
import type { WebApiStore } from "./web-api-store.js";

/**
 * The sandbox's Slack side towards the bot: turns the page's "typed a command" and "clicked a button" into requests
 * signed exactly as Slack signs them, POSTs them to the bot's `/slack/events`, and records what comes back (the
 * command's ack body, `response_url` replies) as ephemerals of the person who acted.
 */
export interface BotClientOptions {
  /** The bot's `…/slack/events` URL. */
  readonly eventsUrl: string;
  readonly signingSecret: string;
  readonly teamId: string;
  readonly channel: { readonly id: string; readonly name: string };
  readonly commandName: string;
  readonly store: WebApiStore;
  readonly botUserId: string;
  /** The `response_url` handed to the bot for a request by `user`. */
  readonly responseUrlFor: (user: string) => string;
  readonly userName: (user: string) => string;
}

export type BotClientResult =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly status: number; readonly error: string };

export interface BotClient {
  command(user: string, text: string): Promise<BotClientResult>;
  click(input: {
    user: string;
    messageTs: string;
    actionId: string;
    value: string;
  }): Promise<BotClientResult>;
  /** `user` opens the app's Home tab: `app_home_opened`, to which the bot answers with `views.publish`. */
  openHome(user: string): Promise<BotClientResult>;
  /** A reply POSTed by the bot to a `response_url` of `user`. */
  respond(user: string, body: unknown): BotClientResult;
}

interface ReplyBody {
  text?: unknown;
  blocks?: unknown;
  response_type?: unknown;
  thread_ts?: unknown;
}

const asReply = (body: unknown): ReplyBody =>
  typeof body === "object" && body !== null ? (body as ReplyBody) : {};
const nowSeconds = () => Math.floor(Date.now() / 1000);

export function createBotClient(o: BotClientOptions): BotClient {
  const channel = o.channel.id;

  function record(user: string, body: unknown): boolean {
    const reply = asReply(body);
    const text = typeof reply.text === "string" ? reply.text : "";
    const blocks = Array.isArray(reply.blocks) ? (reply.blocks as unknown[]) : undefined;
    if (text === "" && blocks === undefined) return false;
    const threadTs = typeof reply.thread_ts === "string" ? reply.thread_ts : undefined;
    const content = {
      channel,
      text,
      ...(blocks === undefined ? {} : { blocks }),
      ...(threadTs === undefined ? {} : { threadTs }),
    };
    if (reply.response_type === "in_channel") o.store.postMessage({ ...content, user: o.botUserId });
    else o.store.postEphemeral({ ...content, user });
    return true;
  }

  async function send(request: SignedRequest): Promise<{ status: number; text: string }> {
    const response = await fetch(o.eventsUrl, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, text: await response.text() };
  }

  return {
    async command(user, typed) {
      const text = typed.trim();
      const [command = "", ...rest] = text.split(/\s+/);
      if (command !== o.commandName) {
        o.store.postEphemeral({
          channel,
          user,
          text: `Only \`${o.commandName} …\` works in this sandbox. Try \`${o.commandName} help\`.`,
        });
        return { ok: false, status: 400, error: "not a known command" };
      }
      const request = buildSlashCommandRequest({
        secret: o.signingSecret,
        command,
        text: rest.join(" "),
        userId: user,
        userName: o.userName(user),
        channelId: channel,
        channelName: o.channel.name,
        teamId: o.teamId,
        responseUrl: o.responseUrlFor(user),
        triggerId: `${nowSeconds()}.${randomUUID().slice(0, 8)}.sandbox`,
        nowSeconds: nowSeconds(),
      });
      const reply = await send(request);
      if (reply.status !== 200)
        return { ok: false, status: reply.status, error: reply.text || "the bot refused the request" };
      if (reply.text !== "") {
        try {
          record(user, JSON.parse(reply.text));
        } catch {
          record(user, { text: reply.text });
        }
      }
      return { ok: true, status: reply.status };
    },
    async click(input) {
      const message = o.store.message(channel, input.messageTs);
      if (message === undefined) return { ok: false, status: 404, error: "no such message" };
      const button = findButton(message.blocks ?? [], input.actionId, input.value);
      const request = buildBlockActionRequest({
        secret: o.signingSecret,
        userId: input.user,
        userName: o.userName(input.user),
        channelId: channel,
        channelName: o.channel.name,
        teamId: o.teamId,
        messageTs: message.ts,
        ...(message.threadTs === undefined ? {} : { threadTs: message.threadTs }),
        messageText: message.text,
        actionId: input.actionId,
        value: input.value,
        ...(button?.blockId === undefined ? {} : { blockId: button.blockId }),
        ...(button?.text === undefined ? {} : { buttonText: button.text }),
        responseUrl: o.responseUrlFor(input.user),
        nowSeconds: nowSeconds(),
      });
      const reply = await send(request);
      return reply.status === 200
        ? { ok: true, status: 200 }
        : { ok: false, status: reply.status, error: reply.text || "the bot refused the click" };
    },
    async openHome(user) {
      const reply = await send(
        buildEventRequest({
          secret: o.signingSecret,
          event: appHomeOpenedEvent(user),
          teamId: o.teamId,
          nowSeconds: nowSeconds(),
        }),
      );
      return reply.status === 200
        ? { ok: true, status: 200 }
        : { ok: false, status: reply.status, error: reply.text || "the bot refused the event" };
    },
    respond(user, body) {
      return record(user, body) ? { ok: true, status: 200 } : { ok: false, status: 400, error: "no_text" };
    },
  };
}

interface ButtonFound {
  blockId?: string;
  text?: string;
}

function findButton(blocks: readonly unknown[], actionId: string, value: string): ButtonFound | undefined {
  for (const block of blocks) {
    const b = block as { type?: unknown; block_id?: unknown; elements?: unknown };
    if (b.type !== "actions" || !Array.isArray(b.elements)) continue;
    for (const element of b.elements as {
      action_id?: unknown;
      value?: unknown;
      text?: { text?: unknown };
    }[]) {
      if (element.action_id !== actionId || element.value !== value) continue;
      return {
        ...(typeof b.block_id === "string" ? { blockId: b.block_id } : {}),
        ...(typeof element.text?.text === "string" ? { text: element.text.text } : {}),
      };
    }
  }
  return undefined;
}
