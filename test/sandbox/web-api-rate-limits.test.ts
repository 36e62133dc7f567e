import { afterEach, describe, expect, it } from "vitest";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { createRateLimiter, SLACK_RATE_LIMITS } from "../../src/sandbox/web-api-rate-limits.js";

describe("Slack's rate limits in the fake Web API", () => {
  it("lets a burst through, then answers with the seconds until a token is back", () => {
    let now = 0;
    const limiter = createRateLimiter({ "chat.update": { perMinute: 60, burst: 2 } }, () => now);
    expect(limiter.take("chat.update", {})).toBeNull();
    expect(limiter.take("chat.update", {})).toBeNull();
    expect(limiter.take("chat.update", {})).toBe(1);
    now += 1_000;
    expect(limiter.take("chat.update", {})).toBeNull();
    expect(limiter.take("chat.update", {})).toBe(1);
  });

  it("keeps chat.postMessage's bucket per channel and leaves unlisted methods alone", () => {
    const limiter = createRateLimiter(SLACK_RATE_LIMITS, () => 0);
    for (let i = 0; i < 3; i += 1) expect(limiter.take("chat.postMessage", { channel: "C1" })).toBeNull();
    expect(limiter.take("chat.postMessage", { channel: "C1" })).toBe(1);
    expect(limiter.take("chat.postMessage", { channel: "C2" })).toBeNull();
    for (let i = 0; i < 100; i += 1) expect(limiter.take("conversations.info", {})).toBeNull();
  });

  it("rounds a Tier 3 wait up to whole seconds, as Retry-After carries them", () => {
    const limiter = createRateLimiter(SLACK_RATE_LIMITS, () => 0);
    for (let i = 0; i < 10; i += 1) expect(limiter.take("chat.update", {})).toBeNull();
    // 50 per minute: a token every 1.2 s.
    expect(limiter.take("chat.update", {})).toBe(2);
  });

  describe("over HTTP", () => {
    let api: FakeSlackWebApi | undefined;
    afterEach(async () => {
      await api?.close();
    });

    it("answers 429 with Retry-After once the method's bucket is empty, and records it", async () => {
      let now = 0;
      api = await startFakeSlackWebApi({
        rateLimits: { "chat.update": { perMinute: 60, burst: 1 } },
        now: () => now,
      });
      const call = () =>
        fetch(`${api?.apiUrl}chat.update`, {
          method: "POST",
          headers: { authorization: "Bearer xoxb-test", "content-type": "application/json" },
          body: JSON.stringify({ channel: "C1", ts: "1.1", text: "x" }),
        });
      const first = await call();
      expect(first.status).toBe(200);
      const second = await call();
      expect(second.status).toBe(429);
      expect(second.headers.get("retry-after")).toBe("1");
      now += 1_000;
      expect((await call()).status).toBe(200);
      expect(api.calls("chat.update").map((c) => c.status)).toEqual([200, 429, 200]);
    });
  });
});
