/** When the Connect client tries again, and how long it waits. */

/**
 * A rebalance in progress: Connect answers 409 on forwarded paths and 500 on local ones
 * (docs/connect-behaviour.md#the-rest-api).
 */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([409, 500]);
/** Statuses a caller may sensibly try again later (the `retryable` flag of `connect/http-status`). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429, 500, 502, 503, 504]);
/** undici's timeout error codes. */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
/** Certificate problems: retrying will not help, the configuration must change. */
export const TLS_CERT_CODES: ReadonlySet<string> = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** Backoff before retry `attempt` (0-based): half fixed, half jitter, capped. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const cap = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(cap / 2 + (random() * cap) / 2);
}
