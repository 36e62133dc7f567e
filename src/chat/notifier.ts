import type { SlackMessage } from "./slack-web-api.js";

export interface PostOptions {
  /** Caller-chosen id of this message, unique per notifier (e.g. `${jobId}:step:3`); `update` refers to it. */
  key: string;
  /** Reply in this thread (a known parent `ts`). */
  threadTs?: string;
  /** Reply in the thread of a message posted through this notifier in the same channel, by its key. */
  threadKey?: string;
  /** For a thread reply: also show it in the channel (`reply_broadcast`). */
  replyBroadcast?: boolean;
}

export interface PostHandle {
  key: string;
  channel: string;
  /**
   * Resolves with the message `ts` once Slack has it. Rejects (`AppError` `slack/api`) only when Slack refuses
   * the message for good (e.g. `not_in_channel`) or the notifier is closed first. Unobserved rejections are safe.
   */
  ts: Promise<string>;
}

export type FlushResult = { kind: "flushed" } | { kind: "timed-out"; pending: number };

/**
 * The port the Slack side posts through: the thread reporter (a rollout's events as its thread's messages) and the
 * command listeners (a rollout's parent message). Nothing here blocks the caller: every call queues work and returns
 * at once; delivery (ordering, rate limits, retries) is the notifier's business. The adapter is
 * `createThreadNotifier` (src/chat/thread-notifier.ts: a queue per channel over a `SlackWebApi`, on a `Clock`).
 */
export interface Notifier {
  /** Queues a message. Posting the same key again returns the first handle (idempotent). */
  post(channel: string, message: SlackMessage, options: PostOptions): PostHandle;
  /**
   * Tracks a message posted elsewhere (e.g. by another bot replica) under `key`, so `update` and `threadKey`
   * can reach it. A key already known is left as it is (its handle is returned), unless its post failed here.
   */
  adopt(channel: string, key: string, ts: string): PostHandle;
  /** The handle of a message posted or adopted under `key`; null when this notifier does not know it. */
  handleOf(key: string): PostHandle | null;
  /** Replaces the content of a message posted with `key`; coalesced (latest wins, only when changed, rate-bounded). */
  update(channel: string, key: string, message: SlackMessage): void;
  /** A message only `user` sees; best effort (dropped after bounded retries). */
  postEphemeral(channel: string, user: string, message: SlackMessage, options?: { threadTs?: string }): void;
  /**
   * Drops what the notifier remembers of messages whose key starts with `keyPrefix` (e.g. a finished job's) once
   * nothing is pending for them; later updates to those keys are ignored. Keeps a long-running bot's memory bounded.
   */
  forget(keyPrefix: string): void;
  /** Sends everything queued (pending updates without waiting for their interval); resolves when done or after `timeoutMs`. */
  flush(timeoutMs: number): Promise<FlushResult>;
  /** Stops sending; what was not delivered is dropped and its handles rejected. Idempotent. */
  close(): Promise<void>;
}
