import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSlashCommandRequest } from "../../../src/sandbox/web-api-signed-requests.js";
import { CHANNEL, type Harness, REQUESTER, SECRET, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const request = (secret: string, nowSeconds: number) =>
  buildSlashCommandRequest({
    secret,
    command: "/connect-roll",
    text: "sim v3.7",
    userId: REQUESTER,
    userName: "requester",
    channelId: CHANNEL,
    teamId: "T0SANDBOX",
    responseUrl: "http://127.0.0.1:1/response",
    triggerId: `t-${nowSeconds}-${secret.length}`,
    nowSeconds,
  });

describe("request signatures", () => {
  it("unsigned, wrongly signed and six-minute-old requests get 401 and nothing runs", async () => {
    const now = Math.floor(Date.now() / 1000);
    const signed = request(SECRET, now);
    const unsigned = { headers: { "content-type": signed.headers["content-type"] ?? "" }, body: signed.body };
    const wrong = request("not-the-signing-secret", now);
    const stale = request(SECRET, now - 6 * 60);
    for (const r of [unsigned, wrong, stale]) expect((await h.send(r)).status).toBe(401);
    // The receiver checks the signature before any listener runs and answers 401 instead: there is nothing to wait
    // for, and nothing may have happened.
    expect(h.fake.calls()).toHaveLength(0);
    expect(h.replicas[0]?.runtime.service.running()).toHaveLength(0);
    expect(await h.replicas[0]?.redis.keys(`${h.prefix}*`)).toEqual([]);
  });

  it("health routes: /healthz and /readyz", async () => {
    expect((await h.get("/healthz")).json()).toEqual({ ok: true });
    expect((await h.get("/readyz")).status).toBe(200);
  });
});
