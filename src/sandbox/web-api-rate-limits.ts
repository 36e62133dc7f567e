import type { WebApiParams } from "./web-api-request.js";

/**
 * Slack's per-method rate limits as the fake Web API enforces them: a token bucket per method (per method and channel
 * for `chat.postMessage`), refilled at the tier's rate and holding a burst. A call that finds its bucket empty is
 * answered 429 with the `Retry-After` (whole seconds, as Slack sends it) after which a token is back.
 *
 * The rates are Slack's published floors: Tier 2 20 per minute, Tier 3 50, Tier 4 100, and `chat.postMessage` about
 * one per second per channel with short bursts. Slack does not publish its burst sizes or `chat.postMessage`'s
 * workspace-wide limit; the bursts below are ours, the workspace-wide limit is not modelled.
 */
export interface RateLimit {
  readonly perMinute: number;
  /** How many calls may come at once before the rate applies. */
  readonly burst: number;
  /** One bucket per channel (the `channel` argument) instead of one per method. */
  readonly perChannel?: boolean;
}

const TIER_2: RateLimit = { perMinute: 20, burst: 5 };
const TIER_3: RateLimit = { perMinute: 50, burst: 10 };
const TIER_4: RateLimit = { perMinute: 100, burst: 20 };

/** The methods the bot calls and their limits. */
export const SLACK_RATE_LIMITS: Readonly<Record<string, RateLimit>> = {
  "chat.postMessage": { perMinute: 60, burst: 3, perChannel: true },
  "chat.update": TIER_3,
  "chat.postEphemeral": TIER_4,
  "views.publish": TIER_4,
  "files.getUploadURLExternal": TIER_4,
  "files.completeUploadExternal": TIER_4,
  "usergroups.users.list": TIER_2,
  "auth.test": TIER_4,
};

export interface RateLimiter {
  /** Takes a token for the call: null when it may go ahead, else the seconds to put in `Retry-After`. */
  take(method: string, params: WebApiParams): number | null;
}

export function createRateLimiter(
  limits: Readonly<Record<string, RateLimit>>,
  now: () => number,
): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(method, params) {
      const limit = limits[method];
      if (limit === undefined) return null;
      const channel = typeof params.channel === "string" ? params.channel : "";
      const key = limit.perChannel ? `${method} ${channel}` : method;
      const t = now();
      const perMs = limit.perMinute / 60_000;
      const last = buckets.get(key) ?? { tokens: limit.burst, at: t };
      const tokens = Math.min(limit.burst, last.tokens + (t - last.at) * perMs);
      if (tokens >= 1) {
        buckets.set(key, { tokens: tokens - 1, at: t });
        return null;
      }
      buckets.set(key, { tokens, at: t });
      return Math.max(1, Math.ceil((1 - tokens) / perMs / 1_000));
    },
  };
}
