import { afterEach, describe, expect, it } from "vitest";
import { AppError, ErrorCode } from "../../../src/core/errors.js";
import { createWebhookRestarter } from "../../../src/restart/webhook/webhook-restarter.js";
import { signWebhookBody, verifyWebhookSignature } from "../../../src/restart/webhook/webhook-signature.js";
import type { RestartRequest } from "../../../src/restart/worker-restarter.js";
import { describeWorkerRestarterContract } from "../worker-restarter-contract.js";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js";

const SECRET = "s3cret-s3cret-s3cret";
const worker = {
  name: "w2",
  url: "http://w2.example:8083",
  host: "w2.example",
  workerId: "w2.example:8083",
  pod: null,
};

describeWorkerRestarterContract("webhook", async () => {
  const receiver = await startWebhookReceiver(SECRET);
  return {
    restarter: createWebhookRestarter({ url: receiver.url, secret: SECRET, timeoutMs: 2000 }),
    restartsOf: async (name) => receiver.accepted.filter((r) => r.payload.worker.name === name).length,
    breakBackend: () => receiver.respondWith(503, "down for maintenance"),
    close: () => receiver.close(),
    worker,
  };
});

describe("webhook signature", () => {
  const body = '{"type":"connect-roll.restart-worker"}';
  const header = signWebhookBody(SECRET, 1_700_000_000, body);

  it("accepts a good signature within the tolerance", () => {
    expect(verifyWebhookSignature(SECRET, "1700000000", body, header, 1_700_000_100, 300)).toEqual({
      ok: true,
    });
  });
  it("accepts one good signature among several (secret rotation)", () => {
    const both = `v1=${"0".repeat(64)}, ${header}`;
    expect(verifyWebhookSignature(SECRET, 1_700_000_000, body, both, 1_700_000_000, 300).ok).toBe(true);
  });
  it("rejects a wrong secret, a changed body and a changed timestamp", () => {
    expect(
      verifyWebhookSignature("other-secret-value", "1700000000", body, header, 1_700_000_000, 300),
    ).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(verifyWebhookSignature(SECRET, "1700000000", `${body} `, header, 1_700_000_000, 300).ok).toBe(
      false,
    );
    expect(verifyWebhookSignature(SECRET, "1700000001", body, header, 1_700_000_000, 300).ok).toBe(false);
  });
  it("rejects a stale timestamp (replay) even with a valid signature", () => {
    expect(verifyWebhookSignature(SECRET, "1700000000", body, header, 1_700_000_301, 300)).toEqual({
      ok: false,
      reason: "stale",
    });
  });
  it("rejects malformed headers", () => {
    expect(verifyWebhookSignature(SECRET, "17e8", body, header, 1_700_000_000, 300).ok).toBe(false);
    expect(verifyWebhookSignature(SECRET, "1700000000", body, undefined, 1_700_000_000, 300)).toEqual({
      ok: false,
      reason: "malformed",
    });
  });
});

describe("webhook restarter", () => {
  let receiver: WebhookReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });
  const req: RestartRequest = {
    worker,
    kind: "upgrade",
    version: "3.8.0",
    image: "registry.example.com/kafka/connect:3.8.0",
    stepId: "job-9:step-3",
  };

  it("posts the documented payload with signature, timestamp and idempotency key", async () => {
    receiver = await startWebhookReceiver(SECRET);
    const sentAt = Math.floor(Date.now() / 1000) * 1000;
    const restarter = createWebhookRestarter({
      url: receiver.url,
      secret: SECRET,
      timeoutMs: 2000,
      headers: { authorization: "Bearer gateway" },
      now: () => sentAt,
    });
    const receipt = await restarter.restart(req);
    expect(receipt.detail).toMatch(/accepted the upgrade of w2 \(HTTP 202/);
    expect(receipt.detail).not.toMatch(/path-secret/);
    const [call] = receiver.accepted;
    expect(call?.headers["idempotency-key"]).toBe("job-9:step-3");
    expect(call?.headers["x-connect-roll-timestamp"]).toBe(String(sentAt / 1000));
    expect(call?.headers.authorization).toBe("Bearer gateway");
    expect(JSON.parse(call?.body ?? "")).toEqual({
      type: "connect-roll.restart-worker",
      stepId: "job-9:step-3",
      worker,
      kind: "upgrade",
      version: "3.8.0",
      image: "registry.example.com/kafka/connect:3.8.0",
      sentAt: new Date(sentAt).toISOString(),
    });
  });

  it("treats 4xx as a failure that is not retried (a wrong secret gives 401)", async () => {
    receiver = await startWebhookReceiver(SECRET);
    const restarter = createWebhookRestarter({
      url: receiver.url,
      secret: "not-the-right-secret",
      timeoutMs: 2000,
    });
    const err = (await restarter.restart(req).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe(ErrorCode.RestartFailed);
    expect(err.retryable).toBe(false);
    expect(err.details.status).toBe(401);
    expect(err.message).not.toMatch(/not-the-right-secret|path-secret/);
    expect(receiver.rejected).toEqual(["mismatch"]);
  });

  it("treats 5xx as a retryable failure", async () => {
    receiver = await startWebhookReceiver(SECRET);
    receiver.respondWith(502, "bad gateway");
    const restarter = createWebhookRestarter({ url: receiver.url, secret: SECRET, timeoutMs: 2000 });
    const err = (await restarter.restart(req).catch((e: unknown) => e)) as AppError;
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/HTTP 502 to the upgrade of w2: bad gateway/);
  });

  it("treats a timeout and a refused connection as retryable failures", async () => {
    receiver = await startWebhookReceiver(SECRET);
    receiver.hang();
    const slow = createWebhookRestarter({ url: receiver.url, secret: SECRET, timeoutMs: 200 });
    const timedOut = (await slow.restart(req).catch((e: unknown) => e)) as AppError;
    expect(timedOut.code).toBe(ErrorCode.RestartFailed);
    expect(timedOut.retryable).toBe(true);
    expect(timedOut.details.timedOut).toBe(true);
    const nowhere = createWebhookRestarter({
      url: "http://127.0.0.1:1/hook",
      secret: SECRET,
      timeoutMs: 1000,
    });
    const refused = (await nowhere.restart(req).catch((e: unknown) => e)) as AppError;
    expect(refused).toBeInstanceOf(AppError);
    expect(refused.retryable).toBe(true);
  });

  it("rejects weak secrets and attempts to override signed headers at creation", () => {
    expect(() =>
      createWebhookRestarter({ url: "http://127.0.0.1/x", secret: "short", timeoutMs: 1 }),
    ).toThrow(AppError);
    expect(() =>
      createWebhookRestarter({
        url: "http://127.0.0.1/x",
        secret: SECRET,
        timeoutMs: 1,
        headers: { "X-Connect-Roll-Signature": "v1=forged" },
      }),
    ).toThrow(/set by connect-roll/);
  });
});
