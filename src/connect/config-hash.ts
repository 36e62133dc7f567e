import { createHash } from "node:crypto";

/** JSON with object keys sorted at every level, so that equal configs give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** Stable hash of a connector configuration (config freeze): sha256 hex of its canonical JSON. */
export function configHash(config: Readonly<Record<string, string>>): string {
  return createHash("sha256").update(canonicalJson(config), "utf8").digest("hex");
}
