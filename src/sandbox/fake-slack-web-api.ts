import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createFakeSocketMode, type FakeSocketMode, type FakeSocketModeOptions } from "./fake-socket-mode.js";
import { createFakeFiles } from "./web-api-files.js";
import { createWebApiMethods, type WebApiReply, webApiError } from "./web-api-methods.js";
import { createRateLimiter, type RateLimit } from "./web-api-rate-limits.js";
import { readWebApiRequest, type WebApiParams } from "./web-api-request.js";
import { createWebApiStore, type StoreChange, type WebApiStore } from "./web-api-store.js";

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
  /**
   * Per-method rate limits to enforce (429 with `Retry-After` once a method's bucket is empty), e.g.
   * `SLACK_RATE_LIMITS` from web-api-rate-limits.ts; none when unset.
   */
  rateLimits?: Readonly<Record<string, RateLimit>>;
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

/**
 * A local stand-in for Slack's Web API over real HTTP, for tests and the demo sandbox. Point a `WebClient`
 * at it with `slackApiUrl: fake.apiUrl` (`<url>/api/`). It implements the methods in web-api-methods.ts (Socket Mode's
 * `apps.connections.open` with the app-level token: `socketMode` is Slack's WebSocket side on the same port; the file
 * upload's methods, its upload URL and the shared files' bytes, web-api-files.ts), keeps the channels, threads,
 * ephemerals and Home tabs in memory (`store`), records every call, and can inject failures:
 * `failNext("chat.postMessage", { status: 429, retryAfterSeconds: 1 })`, `{ status: 500, times: 3 }`,
 * `{ error: "not_in_channel" }` (a 200 with `ok: false`) or `{ delayMs: 2000 }` (slowness).
 */
export async function startFakeSlackWebApi(options: FakeSlackWebApiOptions = {}): Promise<FakeSlackWebApi> {
  const store = createWebApiStore();
  const now = options.now ?? Date.now;
  const botUserId = options.botUserId ?? "UBOT0001";
  const recorded: RecordedCall[] = [];
  const failures = new Map<string, InjectedFailure[]>();
  const timers = new Set<NodeJS.Timeout>();
  const limiter = options.rateLimits === undefined ? null : createRateLimiter(options.rateLimits, now);

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

  function send(response: ServerResponse, reply: WebApiReply): void {
    if (response.destroyed) return;
    response.writeHead(reply.status, { "content-type": "application/json; charset=utf-8", ...reply.headers });
    response.end(JSON.stringify(reply.body));
  }

  const socketMode = createFakeSocketMode(() => `ws://${host}:${boundPort}`, options.socketMode);
  let boundPort = 0;
  const files = createFakeFiles(store, () => `http://${host}:${boundPort}`);
  const handle = createWebApiMethods({
    store,
    botUserId,
    botId: options.botId ?? "BBOT0001",
    teamId: options.teamId ?? "T0SANDBOX",
    botToken: options.botToken,
    appToken: options.appToken,
    openConnectionUrl: () => socketMode.openConnectionUrl(),
    more: (method, params) => files.handle(method, params, botUserId),
  });
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      if (!url.pathname.startsWith("/api/") && (await files.serve(request, response, url.pathname))) return;
      const method = url.pathname.startsWith("/api/") ? url.pathname.slice("/api/".length) : "";
      const read = await readWebApiRequest(request, url);
      let reply: WebApiReply;
      let params: WebApiParams = {};
      if (read.kind === "error") reply = webApiError(read.error);
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
        const limited = failure === undefined ? (limiter?.take(method, params) ?? null) : null;
        if (read.token === undefined) reply = webApiError("not_authed");
        else if (failure?.status === 429 || limited !== null) {
          reply = {
            status: 429,
            body: { ok: false, error: "ratelimited" },
            headers: { "retry-after": String(limited ?? failure?.retryAfterSeconds ?? 1) },
          };
        } else if (failure?.status !== undefined && failure.status !== 200) {
          reply = { status: failure.status, body: { ok: false, error: failure.error ?? "internal_error" } };
        } else if (failure?.error !== undefined) reply = webApiError(failure.error);
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
