import { blocksParam, stringParam, type WebApiParams } from "./web-api-request.js";
import type { StoredMessage, WebApiStore } from "./web-api-store.js";

/** An answer of the fake Web API: the HTTP status, Slack's JSON body and any extra headers. */
export interface WebApiReply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface WebApiMethodsOptions {
  store: WebApiStore;
  botUserId: string;
  botId: string;
  teamId: string;
  /** When set, calls must carry this token (`invalid_auth` otherwise). */
  botToken?: string | undefined;
  /** The app-level token `apps.connections.open` requires; Socket Mode is refused when unset. */
  appToken?: string | undefined;
  /** The WebSocket URL `apps.connections.open` hands out. */
  openConnectionUrl(): string;
  /** Further methods (the file upload's), answered once the token is checked; null: not one of them. */
  more?: (method: string, params: WebApiParams) => WebApiReply | null;
}

/** A 200 `{ ok: false, error }`, the way Slack refuses a call. */
export const webApiError = (code: string): WebApiReply => ({ status: 200, body: { ok: false, error: code } });

/**
 * The Web API methods the fake implements, with Slack's response shapes and error codes: `auth.test`,
 * `chat.postMessage`, `chat.update`, `chat.postEphemeral`, `usergroups.users.list`, `views.publish` (the App Home tab)
 * and `apps.connections.open` (with the app-level token), and those of `more`. Returns the handler of one
 * authenticated call.
 */
export function createWebApiMethods(
  o: WebApiMethodsOptions,
): (method: string, params: WebApiParams, token: string) => WebApiReply {
  const error = webApiError;

  function messageJson(m: StoredMessage): Record<string, unknown> {
    return {
      type: "message",
      user: m.user,
      bot_id: o.botId,
      team: o.teamId,
      text: m.text,
      ts: m.ts,
      ...(m.blocks === undefined ? {} : { blocks: m.blocks }),
      ...(m.threadTs === undefined ? {} : { thread_ts: m.threadTs }),
      ...(m.broadcast === true ? { subtype: "thread_broadcast" } : {}),
      ...(m.edits > 0 ? { edited: { user: m.user, ts: m.ts } } : {}),
    };
  }

  return function handle(method: string, params: WebApiParams, token: string): WebApiReply {
    if (method === "apps.connections.open") {
      if (o.appToken === undefined || token !== o.appToken) return error("invalid_auth");
      return { status: 200, body: { ok: true, url: o.openConnectionUrl() } };
    }
    if (o.appToken !== undefined && token === o.appToken) return error("not_allowed_token_type");
    if (o.botToken !== undefined && token !== o.botToken) return error("invalid_auth");
    const channel = stringParam(params, "channel");
    const text = stringParam(params, "text");
    const blocks = blocksParam(params);
    switch (method) {
      case "auth.test":
        return {
          status: 200,
          body: {
            ok: true,
            url: "https://sandbox.slack.com/",
            team: "sandbox",
            user: "connect-roll",
            team_id: o.teamId,
            user_id: o.botUserId,
            bot_id: o.botId,
            is_enterprise_install: false,
          },
        };
      case "chat.postMessage": {
        if (channel === undefined) return error("channel_not_found");
        if (text === undefined && blocks === undefined) return error("no_text");
        const threadTs = stringParam(params, "thread_ts");
        const broadcast = threadTs !== undefined && String(params.reply_broadcast) === "true";
        const message = o.store.postMessage({
          channel,
          user: o.botUserId,
          text: text ?? "",
          ...(blocks === undefined ? {} : { blocks }),
          ...(threadTs === undefined ? {} : { threadTs }),
          ...(broadcast ? { broadcast: true } : {}),
        });
        return { status: 200, body: { ok: true, channel, ts: message.ts, message: messageJson(message) } };
      }
      case "chat.update": {
        const ts = stringParam(params, "ts");
        if (channel === undefined) return error("channel_not_found");
        if (ts === undefined) return error("message_not_found");
        if (text === undefined && blocks === undefined) return error("no_text");
        const message = o.store.updateMessage({
          channel,
          ts,
          text: text ?? "",
          ...(blocks === undefined ? {} : { blocks }),
        });
        if (message === undefined) return error("message_not_found");
        return {
          status: 200,
          body: { ok: true, channel, ts, text: message.text, message: messageJson(message) },
        };
      }
      case "chat.postEphemeral": {
        const user = stringParam(params, "user");
        if (channel === undefined) return error("channel_not_found");
        if (user === undefined) return error("user_not_found");
        if (text === undefined && blocks === undefined) return error("no_text");
        const threadTs = stringParam(params, "thread_ts");
        const ephemeral = o.store.postEphemeral({
          channel,
          user,
          text: text ?? "",
          ...(blocks === undefined ? {} : { blocks }),
          ...(threadTs === undefined ? {} : { threadTs }),
        });
        return { status: 200, body: { ok: true, message_ts: ephemeral.ts } };
      }
      case "usergroups.users.list": {
        const group = stringParam(params, "usergroup");
        const users = group === undefined ? undefined : o.store.userGroup(group);
        return users === undefined ? error("no_such_subteam") : { status: 200, body: { ok: true, users } };
      }
      case "views.publish": {
        const user = stringParam(params, "user_id");
        const view = params.view;
        const parsed = typeof view === "string" ? safeJson(view) : view;
        if (user === undefined) return error("user_not_found");
        if (typeof parsed !== "object" || parsed === null || (parsed as { type?: unknown }).type !== "home")
          return error("invalid_arguments");
        const published = o.store.publishHome(user, parsed as Record<string, unknown>);
        return {
          status: 200,
          body: { ok: true, view: { id: published.id, type: "home", ...published.view } },
        };
      }
      default:
        return o.more?.(method, params) ?? error("unknown_method");
    }
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
