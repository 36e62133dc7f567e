import type { Logger } from "pino";
import type { Clock } from "../core/clock.js";
import { AppError, ErrorCode } from "../core/errors.js";
import type { FlushResult, Notifier, PostHandle, PostOptions } from "./notifier.js";
import {
  type ChannelQueue,
  createChannelQueue,
  nextStep,
  pendingIn,
  type Tracked,
} from "./notifier-schedule.js";
import { createNotifierSenders } from "./notifier-send.js";
import type { SlackWebApi } from "./slack-web-api.js";

export interface ThreadNotifierOptions {
  api: SlackWebApi;
  clock: Clock;
  logger: Logger;
  /** Spacing of `chat.postMessage` calls per channel (Slack allows about 1 per second). Default 1000. */
  postIntervalMs?: number;
  /** Least time between two `chat.update` calls for the same message. Default 3000. */
  minUpdateIntervalMs?: number;
  /**
   * Least time between two `chat.update` calls of this notifier, whatever the channel: Slack allows the method about
   * 50 times a minute per workspace (Tier 3). Default 1200; 0 while flushing.
   */
  updateSpacingMs?: number;
  /** First retry delay after a transient failure; doubles per attempt up to `maxBackoffMs`. Default 500. */
  baseBackoffMs?: number;
  /** Default 30 000. */
  maxBackoffMs?: number;
  /** Attempts before an ephemeral message is dropped (thread messages are never dropped for transient failures). Default 5. */
  maxEphemeralAttempts?: number;
}

/**
 * The `Notifier` over a `SlackWebApi`: one queue per channel, drained by its own loop.
 * - posts keep their order per channel, spaced by `postIntervalMs`; a reply waits for its parent's `ts`;
 * - updates are coalesced per message: only the latest content, only when it differs from what Slack shows,
 *   at most every `minUpdateIntervalMs`, and only after the post has completed;
 * - `chat.update` calls of all channels are spaced by `updateSpacingMs` (Slack counts them per workspace);
 * - 429: a post's pauses the channel's posts for `Retry-After`, an update's every channel's updates; transient
 *   failures back off exponentially; thread
 *   messages are retried until `close()` (blocking later posts of that channel, so the thread stays in order),
 *   ephemerals are dropped after `maxEphemeralAttempts`; permanent refusals (e.g. `not_in_channel`) drop the
 *   message, log an error and reject its handle.
 */
export function createThreadNotifier(options: ThreadNotifierOptions): Notifier {
  const { api, clock } = options;
  const log = options.logger.child({ component: "thread-notifier" });
  const postIntervalMs = options.postIntervalMs ?? 1000;
  const minUpdateIntervalMs = options.minUpdateIntervalMs ?? 3000;
  const updateSpacingMs = options.updateSpacingMs ?? 1200;
  const updates = { lastAt: Number.NEGATIVE_INFINITY, pausedUntil: 0 };
  const baseBackoffMs = options.baseBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const maxEphemeralAttempts = options.maxEphemeralAttempts ?? 5;
  const queues = new Map<string, ChannelQueue>();
  const messages = new Map<string, Tracked>();
  const idleWaiters = new Set<() => void>();
  let flushing = 0;
  let closed = false;
  let closing: Promise<void> | undefined;

  const { sendPost, sendEphemeral, sendUpdate } = createNotifierSenders({
    api,
    clock,
    log,
    messages,
    backoff: (attempts) => Math.min(maxBackoffMs, baseBackoffMs * 2 ** Math.max(0, attempts - 1)),
    updates,
  });
  const closedError = (key: string) =>
    new AppError(ErrorCode.SlackApi, "the notifier was closed before the message was posted", {
      details: { key },
    });

  function queueFor(channel: string): ChannelQueue {
    let q = queues.get(channel);
    if (q === undefined) {
      q = createChannelQueue(channel);
      queues.set(channel, q);
    }
    return q;
  }

  function kick(q: ChannelQueue): void {
    if (closed) return;
    if (q.loop !== undefined) {
      q.wake?.abort();
      return;
    }
    q.loop = drain(q).finally(() => {
      q.loop = undefined;
      if (!closed && pendingIn(q) > 0) kick(q);
      notifyIfIdle();
    });
  }

  function notifyIfIdle(): void {
    for (const q of queues.values()) if (pendingIn(q) > 0) return;
    for (const done of idleWaiters) done();
    idleWaiters.clear();
  }

  async function drain(q: ChannelQueue): Promise<void> {
    while (!closed) {
      const step = nextStep(q, clock.now(), {
        postIntervalMs,
        minUpdateIntervalMs: flushing > 0 ? 0 : minUpdateIntervalMs,
        updatesNotBefore: Math.max(
          updates.pausedUntil,
          updates.lastAt + (flushing > 0 ? 0 : updateSpacingMs),
        ),
      });
      if (step.kind === "idle") return;
      if (step.kind === "wait") {
        const wake = new AbortController();
        q.wake = wake;
        await clock.sleep(step.ms, wake.signal).catch(() => undefined);
        q.wake = undefined;
      } else if (step.kind === "item") {
        await (step.item.kind === "post"
          ? sendPost(q, step.item)
          : sendEphemeral(q, step.item, maxEphemeralAttempts));
      } else {
        await sendUpdate(q, step.tracked);
      }
      notifyIfIdle();
    }
  }

  return {
    post(channel, message, postOptions: PostOptions) {
      const existing = messages.get(postOptions.key);
      if (existing !== undefined) return existing.handle;
      let resolve: (ts: string) => void = () => undefined;
      let reject: (error: AppError) => void = () => undefined;
      const ts = new Promise<string>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      ts.catch(() => undefined);
      const handle: PostHandle = { key: postOptions.key, channel, ts };
      const tracked: Tracked = {
        key: postOptions.key,
        channel,
        state: "queued",
        sentContent: "",
        lastUpdateAt: Number.NEGATIVE_INFINITY,
        updateNotBefore: 0,
        updateAttempts: 0,
        handle,
        resolve,
        reject,
      };
      if (closed) {
        reject(closedError(postOptions.key));
        return handle;
      }
      messages.set(postOptions.key, tracked);
      const q = queueFor(channel);
      q.items.push({
        kind: "post",
        tracked,
        message,
        attempts: 0,
        notBefore: 0,
        ...(postOptions.threadTs === undefined ? {} : { threadTs: postOptions.threadTs }),
        ...(postOptions.threadKey === undefined ? {} : { threadKey: postOptions.threadKey }),
        ...(postOptions.replyBroadcast === true ? { replyBroadcast: true } : {}),
      });
      kick(q);
      return handle;
    },
    adopt(channel, key, ts) {
      const existing = messages.get(key);
      // A message this notifier failed to post was posted elsewhere after all: the given ts replaces it.
      if (existing !== undefined && existing.state !== "failed") return existing.handle;
      const handle: PostHandle = { key, channel, ts: Promise.resolve(ts) };
      messages.set(key, {
        key,
        channel,
        state: "posted",
        ts,
        sentContent: "",
        lastUpdateAt: Number.NEGATIVE_INFINITY,
        updateNotBefore: 0,
        updateAttempts: 0,
        handle,
        resolve: () => undefined,
        reject: () => undefined,
      });
      return handle;
    },
    handleOf: (key) => messages.get(key)?.handle ?? null,
    forget(keyPrefix) {
      // A parent stays while a reply to it is queued: the reply needs its ts (a flush that timed out forgets early).
      const parents = new Set<string>();
      for (const q of queues.values())
        for (const item of q.items)
          if (item.kind === "post" && item.threadKey !== undefined) parents.add(item.threadKey);
      for (const [key, tracked] of messages) {
        if (
          !key.startsWith(keyPrefix) ||
          tracked.pending !== undefined ||
          tracked.state === "queued" ||
          parents.has(key)
        )
          continue;
        messages.delete(key);
      }
    },
    update(channel, key, message) {
      const tracked = messages.get(key);
      if (closed || tracked === undefined || tracked.channel !== channel || tracked.state === "failed") {
        log.warn({ channel, key }, "update of an unknown, failed or closed message ignored");
        return;
      }
      tracked.pending = message;
      const q = queueFor(channel);
      q.updates.add(tracked);
      kick(q);
    },
    postEphemeral(channel, user, message, ephemeralOptions = {}) {
      if (closed) return;
      const q = queueFor(channel);
      const { threadTs } = ephemeralOptions;
      q.items.push({
        kind: "ephemeral",
        user,
        message,
        attempts: 0,
        notBefore: 0,
        ...(threadTs === undefined ? {} : { threadTs }),
      });
      kick(q);
    },
    async flush(timeoutMs): Promise<FlushResult> {
      flushing += 1;
      const timeout = new AbortController();
      try {
        for (const q of queues.values()) if (pendingIn(q) > 0) kick(q);
        const idle = new Promise<"idle">((res) => {
          const done = () => res("idle");
          idleWaiters.add(done);
          notifyIfIdle();
        });
        const timer = clock.sleep(timeoutMs, timeout.signal).then(
          () => "timeout" as const,
          () => "timeout" as const,
        );
        const outcome = await Promise.race([idle, timer]);
        return outcome === "idle"
          ? { kind: "flushed" }
          : { kind: "timed-out", pending: [...queues.values()].reduce((n, q) => n + pendingIn(q), 0) };
      } finally {
        timeout.abort();
        flushing -= 1;
      }
    },
    close() {
      closing ??= (async () => {
        closed = true;
        for (const q of queues.values()) q.wake?.abort();
        await Promise.allSettled([...queues.values()].map((q) => q.loop));
        for (const q of queues.values()) {
          for (const item of q.items)
            if (item.kind === "post") item.tracked.reject(closedError(item.tracked.key));
          q.items = [];
          q.updates.clear();
        }
        for (const done of idleWaiters) done();
        idleWaiters.clear();
      })();
      return closing;
    },
  };
}
