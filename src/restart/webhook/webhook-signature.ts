import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signing of connect-roll webhook requests.
 *
 * The signed string is `<timestamp>.<raw body>`, where `<timestamp>` is the `X-Connect-Roll-Timestamp` header
 * (unix seconds) and the raw body is the exact bytes received. The `X-Connect-Roll-Signature` header is
 * `v1=<hex HMAC-SHA256(secret, signed string)>`; during a secret rotation it may list several, comma-separated
 * (`v1=…,v1=…`), and one match is enough.
 */
export const WEBHOOK_TIMESTAMP_HEADER = "x-connect-roll-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "x-connect-roll-signature";

/** Computes the `X-Connect-Roll-Signature` header value for a body sent at `timestamp` (unix seconds). */
export function signWebhookBody(secret: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex");
  return `v1=${mac}`;
}

export type WebhookVerification =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: "malformed" | "stale" | "mismatch" };

/**
 * Verifies a received webhook, for receivers written in TypeScript/JavaScript (and our tests). Pure: the
 * current time is passed in.
 *
 * @param secret     the shared secret
 * @param timestamp  the `X-Connect-Roll-Timestamp` header value (unix seconds, digits only)
 * @param body       the raw request body exactly as received (not re-serialised JSON)
 * @param header     the `X-Connect-Roll-Signature` header value
 * @param nowSeconds the receiver's current unix time in seconds
 * @param toleranceSeconds how far the timestamp may be from now (e.g. 300); older requests are `stale`,
 *                   which stops replays
 * @returns `{ ok: true }`, or `{ ok: false, reason }` with reason `malformed` (missing or badly formed
 *          headers), `stale` (timestamp outside the tolerance) or `mismatch` (wrong signature)
 */
export function verifyWebhookSignature(
  secret: string,
  timestamp: string | number,
  body: string,
  header: string | undefined,
  nowSeconds: number,
  toleranceSeconds: number,
): WebhookVerification {
  const ts =
    typeof timestamp === "number" ? timestamp : /^[0-9]{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  if (!Number.isSafeInteger(ts) || header === undefined || header.length === 0 || header.length > 2000) {
    return { ok: false, reason: "malformed" };
  }
  if (Math.abs(nowSeconds - ts) > toleranceSeconds) return { ok: false, reason: "stale" };
  const expected = Buffer.from(signWebhookBody(secret, ts, body), "utf8");
  const candidates = header.split(",").map((part) => part.trim());
  let matched = false;
  for (const candidate of candidates) {
    const given = Buffer.from(candidate, "utf8");
    // Compare every candidate (no early exit) in constant time per candidate.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: "mismatch" };
}
