import { z } from "zod";

/**
 * The field types of the configuration file that the executors' config pieces use too. They live here, not in
 * src/config/, because restart sits below config (scripts/check-layers.mjs): config builds its schema with them and
 * with the executors' pieces (src/restart/executors.ts).
 */

export const name = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "must be lower-case letters, digits, '.', '_' or '-' (max 63)");

export const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

export const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable name");

export const durationMs = z
  .number()
  .int()
  .min(0)
  .max(7 * 24 * 3600 * 1000);
