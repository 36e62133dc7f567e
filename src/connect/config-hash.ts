import { createHash } from "node:crypto";
import { CONFIG_HASH_HEX_DIGITS } from "../core/snapshot.js";

/** JSON with object keys sorted at every level, so that equal configs give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/**
 * Stable hash of a connector configuration (config freeze): the first 64 bits of the sha256 of its canonical JSON,
 * in hex. It only tells a connector's changed config from its unchanged one, so 64 bits are plenty (a change keeps
 * the hash with a chance of 1 in 1.8 × 10^19). Every checkpoint holds each connector's hash twice and hex digits do
 * not compress: the full 256 bits would weigh about 128 KB in each checkpoint of a 2,000-connector cluster.
 */
export function configHash(config: Readonly<Record<string, string>>): string {
  return createHash("sha256")
    .update(canonicalJson(config), "utf8")
    .digest("hex")
    .slice(0, CONFIG_HASH_HEX_DIGITS);
}
