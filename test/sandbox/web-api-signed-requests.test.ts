import { describe, expect, it } from "vitest";
import { verifySlackSignature } from "../../src/chat/slack-signature.js";
import {
  buildBlockActionRequest,
  buildSlashCommandRequest,
} from "../../src/sandbox/web-api-signed-requests.js";

const secret = "sandbox-signing-secret";
const nowSeconds = 1_700_000_123;

describe("signed requests as Slack sends them", () => {
  it("builds a form-encoded, signed slash command", () => {
    const request = buildSlashCommandRequest({
      secret,
      command: "/connect-roll",
      text: "prod-cluster v3.7",
      userId: "U1",
      userName: "alice",
      channelId: "C1",
      teamId: "T1",
      responseUrl: "http://127.0.0.1:1/response",
      triggerId: "trigger-1",
      nowSeconds,
    });
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.headers["x-slack-request-timestamp"]).toBe(String(nowSeconds));
    expect(request.body).toContain("command=%2Fconnect-roll&text=prod-cluster+v3.7");
    const fields = Object.fromEntries(new URLSearchParams(request.body));
    expect(fields).toMatchObject({
      user_id: "U1",
      user_name: "alice",
      channel_id: "C1",
      team_id: "T1",
      trigger_id: "trigger-1",
    });
    expect(
      verifySlackSignature({
        secret,
        timestamp: request.headers["x-slack-request-timestamp"],
        body: request.body,
        signature: request.headers["x-slack-signature"],
        nowSeconds,
      }),
    ).toEqual({ kind: "valid" });
  });

  it("builds a block_actions click as payload=<json>", () => {
    const request = buildBlockActionRequest({
      secret,
      userId: "U2",
      channelId: "C1",
      messageTs: "1700000000.000300",
      actionId: "connect-roll.approve",
      value: '{"v":1,"jobId":"j1"}',
      nowSeconds,
    });
    const payloadText = new URLSearchParams(request.body).get("payload");
    expect(request.body.startsWith("payload=")).toBe(true);
    const payload = JSON.parse(payloadText ?? "{}");
    expect(payload).toMatchObject({
      type: "block_actions",
      user: { id: "U2" },
      channel: { id: "C1" },
      container: { type: "message", message_ts: "1700000000.000300", channel_id: "C1" },
      message: { ts: "1700000000.000300" },
      actions: [{ action_id: "connect-roll.approve", value: '{"v":1,"jobId":"j1"}', type: "button" }],
    });
    expect(
      verifySlackSignature({
        secret,
        timestamp: request.headers["x-slack-request-timestamp"],
        body: request.body,
        signature: request.headers["x-slack-signature"],
        nowSeconds: nowSeconds + 10,
      }),
    ).toEqual({ kind: "valid" });
  });
});
