import type { AppError } from "../core/errors.js";
import type { PostHandle } from "./notifier.js";
import type { SlackMessage } from "./slack-web-api.js";

/**
 * The state of the thread notifier's per-channel queues and the decision of what a channel's loop does
 * next. Pure: time is passed in. `createThreadNotifier` performs the steps.
 */

/** A message posted through the notifier, tracked so that later updates can reach it. */
export interface Tracked {
  key: string;
  channel: string;
  state: "queued" | "posted" | "failed";
  ts?: string;
  sentContent: string;
  pending?: SlackMessage;
  lastUpdateAt: number;
  updateNotBefore: number;
  updateAttempts: number;
  handle: PostHandle;
  resolve: (ts: string) => void;
  reject: (error: AppError) => void;
}

export type Item =
  | {
      kind: "post";
      tracked: Tracked;
      message: SlackMessage;
      threadTs?: string;
      threadKey?: string;
      replyBroadcast?: boolean;
      attempts: number;
      notBefore: number;
    }
  | {
      kind: "ephemeral";
      user: string;
      message: SlackMessage;
      threadTs?: string;
      attempts: number;
      notBefore: number;
    };

export interface ChannelQueue {
  channel: string;
  items: Item[];
  updates: Set<Tracked>;
  /** Until when this channel's posts and ephemerals wait (a 429 of `chat.postMessage`, which Slack counts per channel). */
  pausedUntil: number;
  lastPostAt: number;
  loop: Promise<void> | undefined;
  wake: AbortController | undefined;
}

export type Step =
  | { kind: "item"; item: Item }
  | { kind: "update"; tracked: Tracked }
  | { kind: "wait"; ms: number }
  | { kind: "idle" };

export function createChannelQueue(channel: string): ChannelQueue {
  return {
    channel,
    items: [],
    updates: new Set(),
    pausedUntil: 0,
    lastPostAt: Number.NEGATIVE_INFINITY,
    loop: undefined,
    wake: undefined,
  };
}

/** An update that still has to be sent. */
function isPendingUpdate(tracked: Tracked): boolean {
  return tracked.pending !== undefined && tracked.state !== "failed";
}

/** How many operations of this queue are still to be done (queued posts and ephemerals, pending updates). */
export function pendingIn(q: ChannelQueue): number {
  return q.items.length + [...q.updates].filter(isPendingUpdate).length;
}

export interface ScheduleSettings {
  postIntervalMs: number;
  /** 0 while flushing. */
  minUpdateIntervalMs: number;
  /**
   * No `chat.update` of any channel before this: Slack counts that method per workspace, so its 429 and the notifier's
   * spacing of it hold every channel's updates.
   */
  updatesNotBefore: number;
}

/**
 * What the channel's loop does next at `now`: the head post or ephemeral when due (posts spaced by
 * `postIntervalMs`), else a due update of an already-posted message, else wait until the earliest due
 * time, or idle when nothing is left. A 429 of posts holds the channel's posts and ephemerals, one of updates every
 * channel's updates (`updatesNotBefore`): each waits out its own limit. Drops updates that are no longer wanted.
 */
export function nextStep(q: ChannelQueue, now: number, settings: ScheduleSettings): Step {
  let wait = Number.POSITIVE_INFINITY;
  const head = q.items[0];
  if (head !== undefined) {
    const readyAt = Math.max(
      q.pausedUntil,
      head.kind === "post"
        ? Math.max(head.notBefore, q.lastPostAt + settings.postIntervalMs)
        : head.notBefore,
    );
    if (readyAt <= now) return { kind: "item", item: head };
    wait = readyAt - now;
  }
  for (const tracked of q.updates) {
    if (!isPendingUpdate(tracked)) {
      q.updates.delete(tracked);
      continue;
    }
    if (tracked.state !== "posted") continue; // its post is queued ahead; the loop comes back after it
    const readyAt = Math.max(
      tracked.lastUpdateAt + settings.minUpdateIntervalMs,
      tracked.updateNotBefore,
      settings.updatesNotBefore,
    );
    if (readyAt <= now) return { kind: "update", tracked };
    wait = Math.min(wait, readyAt - now);
  }
  return wait === Number.POSITIVE_INFINITY ? { kind: "idle" } : { kind: "wait", ms: wait };
}
