import { afterEach, describe, expect, it } from "vitest";
import { type RedisServerProcess, startRedisServer } from "../../../redis/redis-server-process.js";
import { useHarness } from "../harness.js";
import { finalReport, loadJob, startAtFirstRestart, waitInThread } from "../rollout-steps.js";

let redis: RedisServerProcess | undefined;
// Registered before the harness's own hook, so it runs after it (the harness cleans its keys on this Redis first).
afterEach(async () => {
  await redis?.stop();
  redis = undefined;
});
const startHarness = useHarness();

const LOCK_TTL_MS = 1500;

describe("a replica that takes back a rollout whose lease it lost", () => {
  it("while Slack still holds its last messages: the new run reports in the same thread, final report included", async () => {
    redis = await startRedisServer();
    const harness = await startHarness({ redisUrl: redis.url, lockTtlMs: LOCK_TTL_MS, orphanSweepMs: 200 });
    const replica = harness.replicas[0];
    if (replica === undefined) throw new Error("no replica");
    const { parent, jobId } = await startAtFirstRestart(harness);
    const before = await loadJob(harness, jobId);

    // Slack refuses every post for a while, so the run that loses its lease ends with its "lost the lock" note still
    // queued (its cleanup waits for the notifier), and the lease is lost as in a failover that drops it.
    harness.fake.failNext("chat.postMessage", { status: 500, times: 10_000 });
    await replica.store.forceRelease("sim", "test");

    // The same replica's sweeper takes the job back (a higher fence) while the first run's messages are still queued.
    await harness.waitFor(
      async () => (await loadJob(harness, jobId)).fence > before.fence,
      LOCK_TTL_MS + 10_000,
      "the job taken back under a higher fence",
    );
    harness.fake.clearFailures();

    const report = await finalReport(harness, parent.ts, "succeeded");
    expect(report.threadTs).toBe(parent.ts);
    expect(report.broadcast).toBe(true);
    await waitInThread(
      harness,
      parent.ts,
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("lost the cluster's lock")),
      5_000,
      "the first run's 'lost the lock' note",
    );
    await waitInThread(
      harness,
      parent.ts,
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("Resumed by replica `replica-0`")),
      5_000,
      "the second run's 'resumed by' note",
    );
    // Still one thread, with one reply per step: the second run edited the step replies it knew, none went elsewhere.
    expect(harness.parents()).toHaveLength(1);
    const replies = harness.thread(parent.ts).replies;
    for (const n of [1, 2, 3])
      expect(
        replies.filter((r) => r.text.startsWith(`Step ${n}/3 `)),
        `step ${n} replies`,
      ).toHaveLength(1);
  }, 60_000);
});
