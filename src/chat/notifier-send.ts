import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { AppError, ErrorCode } from "../core/errors.js";
import type { ChannelQueue, Item, Tracked } from "./notifier-schedule.js";
import { type SlackMessage, type SlackWebApi, slackFailureOf } from "./slack-web-api.js";

export interface NotifierSendersOptions {
  readonly api: SlackWebApi;
  readonly clock: Clock;
  readonly log: Logger;
  /** Every message posted through the notifier, by key (a reply looks its parent up here). */
  readonly messages: ReadonlyMap<string, Tracked>;
  /** Delay before the next attempt after `attempts` transient failures. */
  readonly backoff: (attempts: number) => number;
  /** The notifier's `chat.update` calls across channels: the last one sent, and until when a 429 holds them. */
  readonly updates: UpdateLimit;
}

export interface UpdateLimit {
  lastAt: number;
  pausedUntil: number;
}

export interface NotifierSenders {
  /** Sends the head post of `q`; on success or a permanent refusal it leaves the queue, else it is retried. */
  sendPost(q: ChannelQueue, item: Extract<Item, { kind: "post" }>): Promise<void>;
  /** Sends the head ephemeral of `q`; dropped after a permanent refusal or too many attempts. */
  sendEphemeral(
    q: ChannelQueue,
    item: Extract<Item, { kind: "ephemeral" }>,
    maxAttempts: number,
  ): Promise<void>;
  /** Sends a tracked message's pending content, unless Slack already shows it. */
  sendUpdate(q: ChannelQueue, tracked: Tracked): Promise<void>;
}

/** What Slack shows of a message, to tell whether an update changes anything. */
const serialize = (m: SlackMessage): string => JSON.stringify({ text: m.text, blocks: m.blocks ?? null });

/**
 * One Web API call each for the thread notifier's queue steps, and what each failure does to the queue: a 429 of a
 * post or ephemeral pauses the channel's posts for Retry-After, a 429 of an update pauses every channel's updates (Slack
 * limits `chat.update` per workspace), a transient failure backs the item off, a permanent one drops it (rejecting its
 * handle).
 */
export function createNotifierSenders(options: NotifierSendersOptions): NotifierSenders {
  const { api, clock, log, messages, backoff, updates } = options;

  async function sendPost(q: ChannelQueue, item: Extract<Item, { kind: "post" }>): Promise<void> {
    const { tracked } = item;
    let threadTs = item.threadTs;
    if (item.threadKey !== undefined) {
      const parent = messages.get(item.threadKey);
      if (parent?.ts === undefined || parent.channel !== q.channel) {
        q.items.shift();
        return fail(tracked, `its parent '${item.threadKey}' was not posted in this channel`);
      }
      threadTs = parent.ts;
    }
    try {
      const result = await api.postMessage({
        channel: q.channel,
        ...item.message,
        ...(threadTs === undefined ? {} : { threadTs }),
        ...(item.replyBroadcast === true ? { replyBroadcast: true } : {}),
      });
      q.items.shift();
      q.lastPostAt = clock.now();
      tracked.state = "posted";
      tracked.ts = result.ts;
      tracked.sentContent = serialize(item.message);
      if (tracked.pending !== undefined && serialize(tracked.pending) === tracked.sentContent) {
        delete tracked.pending;
      }
      tracked.resolve(result.ts);
    } catch (error) {
      const failure = slackFailureOf(error);
      if (failure.kind === "rate-limited") {
        q.pausedUntil = clock.now() + failure.retryAfterMs;
        log.warn(
          { channel: q.channel, retryAfterMs: failure.retryAfterMs },
          "slack rate limited the channel",
        );
      } else if (failure.kind === "permanent") {
        q.items.shift();
        log.error(
          { channel: q.channel, key: tracked.key, slackError: failure.error },
          "slack refused a message",
        );
        fail(tracked, `Slack refused it: ${failure.error}`, error);
      } else {
        item.attempts += 1;
        item.notBefore = clock.now() + backoff(item.attempts);
        log.warn(
          { channel: q.channel, key: tracked.key, attempts: item.attempts, err: error },
          "slack post failed, will retry",
        );
      }
    }
  }

  function fail(tracked: Tracked, why: string, cause?: unknown): void {
    tracked.state = "failed";
    delete tracked.pending;
    tracked.reject(
      new AppError(ErrorCode.SlackApi, `message '${tracked.key}' was not posted: ${why}`, {
        cause,
        details: { key: tracked.key },
      }),
    );
  }

  async function sendEphemeral(
    q: ChannelQueue,
    item: Extract<Item, { kind: "ephemeral" }>,
    maxEphemeralAttempts: number,
  ): Promise<void> {
    try {
      await api.postEphemeral({
        channel: q.channel,
        user: item.user,
        ...item.message,
        ...(item.threadTs === undefined ? {} : { threadTs: item.threadTs }),
      });
      q.items.shift();
    } catch (error) {
      const failure = slackFailureOf(error);
      if (failure.kind === "rate-limited") {
        q.pausedUntil = clock.now() + failure.retryAfterMs;
        return;
      }
      item.attempts += 1;
      if (failure.kind === "permanent" || item.attempts >= maxEphemeralAttempts) {
        q.items.shift();
        log.error({ channel: q.channel, slackUserId: item.user, err: error }, "ephemeral message dropped");
        return;
      }
      item.notBefore = clock.now() + backoff(item.attempts);
    }
  }

  async function sendUpdate(q: ChannelQueue, tracked: Tracked): Promise<void> {
    const content = tracked.pending;
    if (content === undefined || tracked.ts === undefined) return;
    const serialized = serialize(content);
    if (serialized === tracked.sentContent) {
      delete tracked.pending;
      return;
    }
    updates.lastAt = clock.now();
    try {
      await api.update({ channel: q.channel, ts: tracked.ts, ...content });
      tracked.sentContent = serialized;
      tracked.lastUpdateAt = clock.now();
      tracked.updateAttempts = 0;
      if (tracked.pending === content) delete tracked.pending;
    } catch (error) {
      const failure = slackFailureOf(error);
      if (failure.kind === "rate-limited") {
        updates.pausedUntil = Math.max(updates.pausedUntil, clock.now() + failure.retryAfterMs);
        log.warn({ retryAfterMs: failure.retryAfterMs }, "slack rate limited chat.update");
      } else if (failure.kind === "permanent") {
        log.error(
          { channel: q.channel, key: tracked.key, slackError: failure.error },
          "slack refused an update",
        );
        if (tracked.pending === content) delete tracked.pending;
      } else {
        tracked.updateAttempts += 1;
        tracked.updateNotBefore = clock.now() + backoff(tracked.updateAttempts);
      }
    }
  }

  return { sendPost, sendEphemeral, sendUpdate };
}
