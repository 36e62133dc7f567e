import { describe, expect, it } from "vitest";
import { useHarness } from "./harness.js";

const startHarness = useHarness();

describe("Slack answering 429 with Retry-After", () => {
  it("messages arrive late, none is lost, and the rollout is not slowed", async () => {
    const harness = await startHarness();
    await harness.command("sim v3.7");
    const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
    harness.fake.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 2, times: 2 });
    harness.fake.failNext("chat.update", { status: 429, retryAfterSeconds: 2, times: 2 });
    await harness.waitFor(
      () => harness.replicas[0]?.runtime.service.running().length === 0,
      15_000,
      "rollout finished",
    );
    // Not slowed: the runner went through all three steps while their messages were not all in Slack yet (a runner
    // that waited for its posts would have delivered every step's reply first; the first of them waits out two
    // Retry-After of 2 s).
    const atFinish = harness.thread(parent.ts).replies;
    expect(atFinish.some((r) => r.text.includes("succeeded after"))).toBe(false);
    expect(atFinish.filter((r) => /^Step \d\/3/.test(r.text)).length).toBeLessThan(3);
    await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("succeeded after")),
      20_000,
      "report caught up",
    );
    const thread = harness.thread(parent.ts);
    expect(thread.replies.filter((r) => /^Step \d\/3/.test(r.text))).toHaveLength(3);
    await harness.waitFor(
      () => harness.thread(parent.ts).replies.filter((r) => r.text.includes("settled in")).length === 3,
      10_000,
      "steps caught up",
    );
    await harness.waitFor(
      () => harness.thread(parent.ts).parent.text.includes("succeeded"),
      10_000,
      "parent caught up",
    );
    expect(harness.fake.calls().filter((c) => c.status === 429).length).toBeGreaterThanOrEqual(2);
  });
});
