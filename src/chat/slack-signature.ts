import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Slack request signing (https://docs.slack.dev/authentication/verifying-requests-from-slack):
 * `v0=` + hex HMAC-SHA256(signing secret, `v0:{timestamp}:{raw body}`). Pure: the caller passes `now`.
 */
const SLACK_SIGNATURE_VERSION = "v0";
const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

export function signSlackRequest(secret: string, timestampSeconds: number | string, rawBody: string): string {
  const digest = createHmac("sha256", secret)
    .update(`${SLACK_SIGNATURE_VERSION}:${timestampSeconds}:${rawBody}`)
    .digest("hex");
  return `${SLACK_SIGNATURE_VERSION}=${digest}`;
}

export interface VerifySlackSignatureInput {
  secret: string;
  /** The `X-Slack-Request-Timestamp` header (seconds). */
  timestamp: string | number | undefined;
  /** The raw request body, exactly as received. */
  body: string;
  /** The `X-Slack-Signature` header. */
  signature: string | undefined;
  nowSeconds: number;
  toleranceSeconds?: number;
}

export type SignatureVerdict =
  | { kind: "valid" }
  | { kind: "invalid"; reason: "missing-headers" | "malformed-timestamp" | "stale" | "mismatch" };

/** Verifies a request: headers present, timestamp within the tolerance (either side), signature equal in constant time. */
export function verifySlackSignature(input: VerifySlackSignatureInput): SignatureVerdict {
  const { secret, timestamp, body, signature, nowSeconds } = input;
  const tolerance = input.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  if (timestamp === undefined || signature === undefined || timestamp === "" || signature === "") {
    return { kind: "invalid", reason: "missing-headers" };
  }
  const text = String(timestamp);
  if (!/^[0-9]{1,12}$/.test(text)) return { kind: "invalid", reason: "malformed-timestamp" };
  if (Math.abs(nowSeconds - Number(text)) > tolerance) return { kind: "invalid", reason: "stale" };
  const expected = Buffer.from(signSlackRequest(secret, text, body), "utf8");
  const given = Buffer.from(signature, "utf8");
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { kind: "invalid", reason: "mismatch" };
  }
  return { kind: "valid" };
}
