import type { Block, KnownBlock } from "@slack/web-api";
import { AppError, ErrorCode } from "../core/errors.js";

/**
 * The small port through which connect-roll calls Slack's Web API. The real adapter wraps `WebClient`
 * (`createWebClientSlackWebApi`); tests use the same adapter against the sandbox's fake Web API.
 *
 * Every method rejects with an `AppError` of code `slack/api` whose `details.failure` says what happened
 * (see `SlackFailure`); callers use `slackFailureOf(err)` rather than reading messages.
 */
export type SlackBlock = KnownBlock | Block;

/** What the bot says. `text` is always sent: it is the notification and screen-reader fallback for `blocks`. */
export interface SlackMessage {
  text: string;
  blocks?: readonly SlackBlock[];
}

export interface PostMessageArgs extends SlackMessage {
  channel: string;
  threadTs?: string;
  /** With `threadTs`: also show the reply in the channel. */
  replyBroadcast?: boolean;
}

export interface UpdateMessageArgs extends SlackMessage {
  channel: string;
  ts: string;
}

export interface PostEphemeralArgs extends SlackMessage {
  channel: string;
  user: string;
  threadTs?: string;
}

/** A file shared into a channel or thread (`files.getUploadURLExternal`, the upload, `files.completeUploadExternal`). */
export interface UploadFileArgs {
  channel: string;
  threadTs?: string;
  filename: string;
  title: string;
  /** What a screen reader says of an image. */
  altText: string;
  bytes: Uint8Array;
}

export interface SlackWebApi {
  postMessage(args: PostMessageArgs): Promise<{ channel: string; ts: string }>;
  update(args: UpdateMessageArgs): Promise<void>;
  postEphemeral(args: PostEphemeralArgs): Promise<void>;
  /** The user ids of a user group (`usergroups.users.list`). */
  usergroupsUsersList(groupId: string): Promise<string[]>;
  /** Publishes a user's App Home tab (`views.publish`, a `home` view). */
  publishHome(userId: string, view: { type: "home"; blocks: readonly SlackBlock[] }): Promise<void>;
  /** Shares a file in the channel (or thread), as Bolt's `filesUploadV2` does; resolves with the file's id. */
  uploadFile(args: UploadFileArgs): Promise<{ fileId: string }>;
}

/**
 * - `rate-limited`: HTTP 429; wait `retryAfterMs` before calling again.
 * - `transient`: outage, 5xx, timeout, network error, or a Slack error that says "try again".
 * - `permanent`: Slack refused the call (`error` is Slack's code, e.g. `not_in_channel`); retrying will not help.
 */
export type SlackFailure =
  | { kind: "rate-limited"; retryAfterMs: number }
  | { kind: "transient"; detail: string }
  | { kind: "permanent"; error: string };

/** Slack error codes that mean "try again later" rather than "this call is wrong". */
export const TRANSIENT_SLACK_ERRORS: ReadonlySet<string> = new Set([
  "ratelimited",
  "rate_limited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "team_added_to_org",
]);

export function slackApiError(method: string, failure: SlackFailure, cause?: unknown): AppError {
  const what =
    failure.kind === "rate-limited"
      ? `rate limited, retry after ${failure.retryAfterMs} ms`
      : failure.kind === "transient"
        ? `temporarily failed (${failure.detail})`
        : `refused: ${failure.error}`;
  return new AppError(ErrorCode.SlackApi, `Slack ${method} ${what}`, {
    cause,
    retryable: failure.kind !== "permanent",
    details: { method, failure },
  });
}

/** The failure carried by an error from a `SlackWebApi`; anything unrecognised counts as transient. */
export function slackFailureOf(error: unknown): SlackFailure {
  if (error instanceof AppError && error.code === ErrorCode.SlackApi) {
    const failure = error.details.failure;
    if (isSlackFailure(failure)) return failure;
  }
  return { kind: "transient", detail: error instanceof Error ? error.message : "unknown error" };
}

function isSlackFailure(value: unknown): value is SlackFailure {
  if (typeof value !== "object" || value === null || !("kind" in value)) return false;
  return value.kind === "rate-limited" || value.kind === "transient" || value.kind === "permanent";
}
