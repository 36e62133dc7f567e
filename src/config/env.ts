import { z } from "zod";
import { AppError, ErrorCode } from "../core/errors.js";
import { parseRedisUrl } from "./redis-url.js";

/** Environment variables the product reads (DESIGN.md §4). Validated once, in the composition root. */
const envSchema = z.object({
  SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xoxb-/, "must be a bot token (xoxb-…)")
    .optional(),
  SLACK_SIGNING_SECRET: z.string().min(8).optional(),
  SLACK_APP_TOKEN: z
    .string()
    .regex(/^xapp-/, "must be an app-level token (xapp-…)")
    .optional(),
  SLACK_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  REDIS_URL: z
    .string()
    .superRefine((url, ctx) => {
      const parsed = parseRedisUrl(url);
      if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error });
    })
    .optional(),
  /** Overrides `redis.checks`: warn about, or refuse, a Redis that may evict a lease or lose checkpoints. */
  CONNECT_ROLL_REDIS_CHECKS: z.enum(["warn", "refuse"]).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  CONNECT_ROLL_REPLICA_ID: z.string().min(1).max(100).optional(),
  /** Prefix of every Redis key (several installations can share one Redis). */
  CONNECT_ROLL_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/)
    .default("connect-roll:"),
  /** Lease of a cluster lock; renewed every third of it. A crashed runner's rollout is taken over after it expires. */
  CONNECT_ROLL_LOCK_TTL_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** How often `serve` looks for rollouts whose lease expired (a crashed replica's), to take them over. */
  CONNECT_ROLL_ORPHAN_SWEEP_MS: z.coerce.number().int().min(200).max(600_000).default(15_000),
});

export type Env = z.infer<typeof envSchema>;

/** Reads and validates the environment; all problems at once. Empty strings count as unset. */
export function readEnv(env: Readonly<Record<string, string | undefined>> = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = envSchema.safeParse(cleaned);
  if (!result.success)
    throw new AppError(ErrorCode.ConfigInvalid, `invalid environment:\n${z.prettifyError(result.error)}`);
  return result.data;
}
