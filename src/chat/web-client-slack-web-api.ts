import {
  LogLevel,
  type Logger as SlackLogger,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
} from "@slack/web-api";
import type { Logger } from "pino";
import { request } from "undici";
import { isAppError } from "../core/errors.js";
import {
  type SlackBlock,
  type SlackFailure,
  type SlackWebApi,
  slackApiError,
  TRANSIENT_SLACK_ERRORS,
} from "./slack-web-api.js";

export interface WebClientSlackWebApiOptions {
  /** Bot token (`xoxb-…`). Never logged. */
  token: string;
  /** Base URL of the Web API, ending in `/api/`; default Slack's own. The sandbox passes `<url>/api/`. */
  slackApiUrl?: string;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
  logger: Logger;
}

/**
 * `SlackWebApi` over `@slack/web-api`'s `WebClient`, configured to fail fast: no retries of its own and
 * 429s rejected at once (`rejectRateLimitedCalls`), so the notifier's queue decides when to try again.
 */
export function createWebClientSlackWebApi(options: WebClientSlackWebApiOptions): SlackWebApi {
  const client = new WebClient(options.token, {
    ...(options.slackApiUrl === undefined ? {} : { slackApiUrl: options.slackApiUrl }),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs ?? 10_000,
    logger: slackLogger(options.logger.child({ component: "slack-web-client" })),
  });

  async function call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isAppError(error)) throw error;
      throw slackApiError(method, classify(error), error);
    }
  }

  return {
    postMessage: (args) =>
      call("chat.postMessage", async () => {
        const base = { channel: args.channel, text: args.text, ...blocksArg(args.blocks) };
        const result = await (args.threadTs === undefined
          ? client.chat.postMessage(base)
          : client.chat.postMessage({
              ...base,
              thread_ts: args.threadTs,
              reply_broadcast: args.replyBroadcast === true,
            }));
        if (result.ts === undefined)
          throw slackApiError("chat.postMessage", { kind: "permanent", error: "no_ts" });
        return { channel: result.channel ?? args.channel, ts: result.ts };
      }),
    update: (args) =>
      call("chat.update", async () => {
        await client.chat.update({
          channel: args.channel,
          ts: args.ts,
          text: args.text,
          ...blocksArg(args.blocks),
        });
      }),
    postEphemeral: (args) =>
      call("chat.postEphemeral", async () => {
        await client.chat.postEphemeral({
          channel: args.channel,
          user: args.user,
          text: args.text,
          ...blocksArg(args.blocks),
          ...(args.threadTs === undefined ? {} : { thread_ts: args.threadTs }),
        });
      }),
    usergroupsUsersList: (groupId) =>
      call("usergroups.users.list", async () => {
        const result = await client.usergroups.users.list({ usergroup: groupId });
        return result.users ?? [];
      }),
    publishHome: (userId, view) =>
      call("views.publish", async () => {
        await client.views.publish({ user_id: userId, view: { type: "home", blocks: [...view.blocks] } });
      }),
    uploadFile: async (args) => {
      // Slack's three steps, as `filesUploadV2` takes them, each with this adapter's timeout and failure kinds.
      const { upload_url: uploadUrl, file_id: fileId } = await call("files.getUploadURLExternal", () =>
        client.files.getUploadURLExternal({
          filename: args.filename,
          length: args.bytes.byteLength,
          alt_text: args.altText,
        }),
      );
      if (uploadUrl === undefined || fileId === undefined)
        throw slackApiError("files.getUploadURLExternal", { kind: "permanent", error: "no_upload_url" });
      await sendFileBytes(uploadUrl, args.bytes, options.timeoutMs ?? 10_000);
      await call("files.completeUploadExternal", () =>
        client.files.completeUploadExternal({
          files: [{ id: fileId, title: args.title }],
          channel_id: args.channel,
          ...(args.threadTs === undefined ? {} : { thread_ts: args.threadTs }),
        }),
      );
      return { fileId };
    },
  };
}

/** The upload itself: the bytes POSTed to the URL Slack handed out (no token: the URL is the credential). */
async function sendFileBytes(url: string, bytes: Uint8Array, timeoutMs: number): Promise<void> {
  let status: number;
  try {
    const response = await request(url, {
      method: "POST",
      body: bytes,
      headers: { "content-type": "application/octet-stream" },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.statusCode;
    await response.body.dump();
  } catch (error) {
    throw slackApiError(
      "files.upload",
      { kind: "transient", detail: error instanceof Error ? error.name : "error" },
      error,
    );
  }
  if (status === 429 || status >= 500)
    throw slackApiError("files.upload", { kind: "transient", detail: `HTTP ${status}` });
  if (status !== 200) throw slackApiError("files.upload", { kind: "permanent", error: `HTTP ${status}` });
}

function blocksArg(blocks: readonly SlackBlock[] | undefined): { blocks?: SlackBlock[] } {
  return blocks === undefined ? {} : { blocks: [...blocks] };
}

function classify(error: unknown): SlackFailure {
  if (error instanceof WebAPIRateLimitedError)
    return { kind: "rate-limited", retryAfterMs: error.retryAfter * 1000 };
  if (error instanceof WebAPIPlatformError) {
    const code = error.data.error;
    return TRANSIENT_SLACK_ERRORS.has(code)
      ? { kind: "transient", detail: code }
      : { kind: "permanent", error: code };
  }
  if (error instanceof WebAPIHTTPError) return { kind: "transient", detail: `HTTP ${error.statusCode}` };
  if (error instanceof WebAPIRequestError) return { kind: "transient", detail: error.original.name };
  return { kind: "transient", detail: error instanceof Error ? error.name : "unknown error" };
}

/** Routes WebClient's own logging into our pino logger (debug-level noise stays at debug). */
function slackLogger(logger: Logger): SlackLogger {
  let level: LogLevel = LogLevel.WARN;
  const text = (args: unknown[]) => args.map((a) => (typeof a === "string" ? a : String(a))).join(" ");
  return {
    debug: (...args) => logger.debug({ detail: text(args) }, "slack web client"),
    info: (...args) => logger.debug({ detail: text(args) }, "slack web client"),
    warn: (...args) => logger.warn({ detail: text(args) }, "slack web client"),
    error: (...args) => logger.error({ detail: text(args) }, "slack web client"),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
