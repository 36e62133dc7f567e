import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createFakeSocketMode, type FakeSocketMode, type FakeSocketModeOptions } from "./fake-socket-mode.js";
import { blocksParam, readWebApiRequest, stringParam, type WebApiParams } from "./web-api-request.js";
import {
  createWebApiStore,
  type StoreChange,
  type StoredMessage,
  type WebApiStore,
} from "./web-api-store.js";

/**
 * A local stand-in for Slack's Web API over real HTTP, for tests and the demo sandbox. Point a `WebClient`
 * at it with `slackApiUrl: fake.apiUrl` (`<url>/api/`). It implements `auth.test`, `chat.postMessage`,
 * `chat.update`, `chat.postEphemeral`, `usergroups.users.list`, `views.publish` (the App Home tab) and
 * `apps.connections.open` (Socket Mode, with the app-level token: `socketMode` is Slack's WebSocket side on the
 * same port) with Slack's response shapes, keeps the channels, threads, ephemerals and Home tabs in memory
 * (`store`), records every call, and can inject failures:
 * `failNext("chat.postMessage", { status: 429, retryAfterSeconds: 1 })`, `{ status: 500, times: 3 }`,
 * `{ error: "not_in_channel" }` (a 200 with `ok: false`) or `{ delayMs: 2000 }` (slowness).
 */
export const FAKE_WEB_API_METHODS = [
  "auth.test",
  "chat.postMessage",
  "chat.update",
  "chat.postEphemeral",
  "usergroups.users.list",
  "views.publish",
  "apps.connections.open",
] as const;

export interface InjectedFailure {
  /** 429 (with `Retry-After`), 500, 503… Omit with `error` for a 200 `{ ok: false, error }`. */
  status?: number;
  retryAfterSeconds?: number;
  /** Slack's error code, e.g. `not_in_channel`. */
  error?: string;
  /** Wait this long before answering (alone: a slow but successful call). */
  delayMs?: number;
  /** How many consecutive calls this applies to; default 1. */
  times?: number;
}

export interface RecordedCall {
  method: string;
  /** The arguments (structured ones parsed), without the token. */
  params: WebApiParams;
  status: number;
  ok: boolean;
  /** Slack's error code when `ok` is false. */
  error?: string;
  at: number;
}

export interface FakeSlackWebApiOptions {
  /** When set, calls must carry this token (`invalid_auth` otherwise); any token is accepted when unset. */
  botToken?: string;
  /** The app-level token (`xapp-…`) `apps.connections.open` requires; Socket Mode is refused when unset. */
  appToken?: string;
  socketMode?: FakeSocketModeOptions;
  botUserId?: string;
  botId?: string;
  teamId?: string;
  host?: string;
  port?: number;
  now?: () => number;
}

export interface FakeSlackWebApi {
  /** `http://host:port` */
  url: string;
  /** `http://host:port/api/`: the `slackApiUrl` for a `WebClient`. */
  apiUrl: string;
  store: WebApiStore;
  /** Slack's side of Socket Mode (the URLs `apps.connections.open` hands out lead here). */
  socketMode: FakeSocketMode;
  botUserId: string;
  calls(method?: string): RecordedCall[];
  failNext(method: string | "*", failure: InjectedFailure): void;
  clearFailures(): void;
  onChange(listener: (change: StoreChange) => void): () => void;
  close(): Promise<void>;
}

type Reply = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };

export async function startFakeSlackWebApi(options: FakeSlackWebApiOptions = {}): Promise<FakeSlackWebApi> {
  const store = createWebApiStore();
  const now = options.now ?? Date.now;
  const botUserId = options.botUserId ?? "UBOT0001";
  const botId = options.botId ?? "BBOT0001";
  const teamId = options.teamId ?? "T0SANDBOX";
  const recorded: RecordedCall[] = [];
  const failures = new Map<string, InjectedFailure[]>();
  const timers = new Set<NodeJS.Timeout>();

  function takeFailure(method: string): InjectedFailure | undefined {
    for (const key of [method, "*"]) {
      const queue = failures.get(key);
      const head = queue?.[0];
      if (queue === undefined || head === undefined) continue;
      const remaining = (head.times ?? 1) - 1;
      if (remaining <= 0) queue.shift();
      else queue[0] = { ...head, times: remaining };
      return head;
    }
    return undefined;
  }

  function messageJson(m: StoredMessage): Record<string, unknown> {
    return {
      type: "message",
      user: m.user,
      bot_id: botId,
      team: teamId,
      text: m.text,
      ts: m.ts,
      ...(m.blocks === undefined ? {} : { blocks: m.blocks }),
      ...(m.threadTs === undefined ? {} : { thread_ts: m.threadTs }),
      ...(m.broadcast === true ? { subtype: "thread_broadcast" } : {}),
      ...(m.edits > 0 ? { edited: { user: m.user, ts: m.ts } } : {}),
    };
  }

  const error = (code: string): Reply => ({ status: 200, body: { ok: false, error: code } });

  function handle(method: string, params: WebApiParams, token: string): Reply {
    if (method === "apps.connections.open") {
      if (options.appToken === undefined || token !== options.appToken) return error("invalid_auth");
      return { status: 200, body: { ok: true, url: socketMode.openConnectionUrl() } };
    }
    if (options.appToken !== undefined && token === options.appToken) return error("not_allowed_token_type");
    if (options.botToken !== undefined && token !== options.botToken) return error("invalid_auth");
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
            team_id: teamId,
            user_id: botUserId,
            bot_id: botId,
            is_enterprise_install: false,
          },
        };
      case "chat.postMessage": {
        if (channel === undefined) return error("channel_not_found");
        if (text === undefined && blocks === undefined) return error("no_text");
        const threadTs = stringParam(params, "thread_ts");
        const broadcast = threadTs !== undefined && String(params.reply_broadcast) === "true";
        const message = store.postMessage({
          channel,
          user: botUserId,
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
        const message = store.updateMessage({
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
        const ephemeral = store.postEphemeral({
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
        const users = group === undefined ? undefined : store.userGroup(group);
        return users === undefined ? error("no_such_subteam") : { status: 200, body: { ok: true, users } };
      }
      case "views.publish": {
        const user = stringParam(params, "user_id");
        const view = params.view;
        const parsed = typeof view === "string" ? safeJson(view) : view;
        if (user === undefined) return error("user_not_found");
        if (typeof parsed !== "object" || parsed === null || (parsed as { type?: unknown }).type !== "home")
          return error("invalid_arguments");
        const published = store.publishHome(user, parsed as Record<string, unknown>);
        return {
          status: 200,
          body: { ok: true, view: { id: published.id, type: "home", ...published.view } },
        };
      }
      default:
        return error("unknown_method");
    }
  }

  function send(response: ServerResponse, reply: Reply): void {
    if (response.destroyed) return;
    response.writeHead(reply.status, { "content-type": "application/json; charset=utf-8", ...reply.headers });
    response.end(JSON.stringify(reply.body));
  }

  const socketMode = createFakeSocketMode(() => `ws://${host}:${boundPort}`, options.socketMode);
  let boundPort = 0;
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      const method = url.pathname.startsWith("/api/") ? url.pathname.slice("/api/".length) : "";
      const read = await readWebApiRequest(request, url);
      let reply: Reply;
      let params: WebApiParams = {};
      if (read.kind === "error") reply = error(read.error);
      else {
        params = read.params;
        const failure = takeFailure(method);
        if (failure?.delayMs !== undefined) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              timers.delete(timer);
              resolve();
            }, failure.delayMs);
            timers.add(timer);
          });
        }
        if (read.token === undefined) reply = error("not_authed");
        else if (failure?.status === 429) {
          reply = {
            status: 429,
            body: { ok: false, error: "ratelimited" },
            headers: { "retry-after": String(failure.retryAfterSeconds ?? 1) },
          };
        } else if (failure?.status !== undefined && failure.status !== 200) {
          reply = { status: failure.status, body: { ok: false, error: failure.error ?? "internal_error" } };
        } else if (failure?.error !== undefined) reply = error(failure.error);
        else reply = handle(method, params, read.token);
      }
      const slackError = typeof reply.body.error === "string" ? reply.body.error : undefined;
      recorded.push({
        method,
        params,
        status: reply.status,
        ok: reply.body.ok === true,
        at: now(),
        ...(slackError === undefined ? {} : { error: slackError }),
      });
      send(response, reply);
    })().catch(() => send(response, { status: 500, body: { ok: false, error: "internal_error" } }));
  });

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  boundPort = port;
  server.on("upgrade", (request, socket, head: Buffer) => socketMode.handleUpgrade(request, socket, head));
  const url = `http://${host}:${port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    apiUrl: `${url}/api/`,
    store,
    socketMode,
    botUserId,
    calls: (method) => recorded.filter((call) => method === undefined || call.method === method),
    failNext(method, failure) {
      const queue = failures.get(method) ?? [];
      queue.push(failure);
      failures.set(method, queue);
    },
    clearFailures: () => failures.clear(),
    onChange: (listener) => store.onChange(listener),
    close() {
      closing ??= new Promise<void>((resolve) => {
        socketMode.close();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
