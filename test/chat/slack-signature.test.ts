import { describe, expect, it } from "vitest";
import { signSlackRequest, verifySlackSignature } from "../../src/chat/slack-signature.js";

// Slack's published example (https://docs.slack.dev/authentication/verifying-requests-from-slack).
const secret = "8f742231b10e8888abcd99yyyzzz85a5";
const timestamp = 1531420618;
const body =
  "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
const expected = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

describe("Slack request signatures", () => {
  it("reproduces Slack's published example", () => {
    expect(signSlackRequest(secret, timestamp, body)).toBe(expected);
    expect(signSlackRequest(secret, String(timestamp), body)).toBe(expected);
  });

  it("accepts the example within five minutes", () => {
    const input = { secret, timestamp: String(timestamp), body, signature: expected };
    expect(verifySlackSignature({ ...input, nowSeconds: timestamp })).toEqual({ kind: "valid" });
    expect(verifySlackSignature({ ...input, nowSeconds: timestamp + 300 })).toEqual({ kind: "valid" });
    expect(verifySlackSignature({ ...input, nowSeconds: timestamp - 300 })).toEqual({ kind: "valid" });
  });

  it("rejects stale requests (> 5 min) and honours a custom tolerance", () => {
    const input = { secret, timestamp, body, signature: expected };
    expect(verifySlackSignature({ ...input, nowSeconds: timestamp + 301 })).toEqual({
      kind: "invalid",
      reason: "stale",
    });
    expect(verifySlackSignature({ ...input, nowSeconds: timestamp - 301 })).toEqual({
      kind: "invalid",
      reason: "stale",
    });
    expect(
      verifySlackSignature({ ...input, nowSeconds: timestamp + 61, toleranceSeconds: 60 }),
    ).toMatchObject({
      reason: "stale",
    });
  });

  it("rejects wrong signatures, secrets, bodies and malformed headers", () => {
    const base = { secret, timestamp, body, signature: expected, nowSeconds: timestamp };
    const mismatch = { kind: "invalid", reason: "mismatch" };
    expect(verifySlackSignature({ ...base, signature: `${expected.slice(0, -1)}0` })).toEqual(mismatch);
    expect(verifySlackSignature({ ...base, signature: "v0=short" })).toEqual(mismatch);
    expect(verifySlackSignature({ ...base, secret: "another-secret" })).toEqual(mismatch);
    expect(verifySlackSignature({ ...base, body: `${body}&x=1` })).toEqual(mismatch);
    expect(verifySlackSignature({ ...base, signature: undefined })).toEqual({
      kind: "invalid",
      reason: "missing-headers",
    });
    expect(verifySlackSignature({ ...base, timestamp: undefined })).toEqual({
      kind: "invalid",
      reason: "missing-headers",
    });
    expect(verifySlackSignature({ ...base, timestamp: "12ab" })).toEqual({
      kind: "invalid",
      reason: "malformed-timestamp",
    });
  });
});
