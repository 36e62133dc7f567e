import { afterEach, describe, expect, it } from "vitest";
import { threadKeys } from "../../../../src/chat/thread-reporter.js";
import { type RedisServerProcess, startRedisServer } from "../../../redis/redis-server-process.js";
import { useHarness } from "../harness.js";
import { finalReport, loadJob, startAtFirstRestart } from "../rollout-steps.js";

let redis: RedisServerProcess | undefined;
// Registered before the harness's own hook, so it runs after it (the harness cleans its keys on this Redis first).
afterEach(async () => {
  await redis?.stop();
  redis = undefined;
});
const startHarness = useHarness();

describe("the end of a rollout while Slack holds its posts back", () => {
  it("releases the cluster's lock without waiting for Slack, then posts the final report and chart and records the report", async () => {
    redis = await startRedisServer();
    const harness = await startHarness({ redisUrl: redis.url });
    const replica = harness.replicas[0];
    if (replica === undefined) throw new Error("no replica");
    const { parent, jobId } = await startAtFirstRestart(harness);
    // From the first restart on, every post and upload is rate-limited: the thread's replies wait, the rollout does not.
    for (const method of ["chat.postMessage", "files.getUploadURLExternal"])
      harness.fake.failNext(method, { status: 429, retryAfterSeconds: 1, times: 100_000 });

    await harness.waitFor(
      async () =>
        (await loadJob(harness, jobId)).status === "succeeded" &&
        (await replica.store.readLock("sim")) === null,
      30_000,
      "the job finished and its lock released",
    );
    // Released while Slack still refuses: the report has not reached the thread, and the record still owes it.
    const says = /succeeded after/;
    expect(harness.thread(parent.ts).replies.some((r) => says.test(r.text))).toBe(false);
    expect((await loadJob(harness, jobId)).messages?.[threadKeys.report(jobId)]).toBeUndefined();

    harness.fake.clearFailures();
    const report = await finalReport(harness, parent.ts, "succeeded");
    expect(report.threadTs).toBe(parent.ts);
    await harness.waitFor(
      () => harness.fake.calls("files.completeUploadExternal").some((c) => c.ok),
      15_000,
      "the chart uploaded",
    );
    await harness.waitFor(
      async () => (await loadJob(harness, jobId)).messages?.[threadKeys.report(jobId)] === report.ts,
      5_000,
      "the report's ts recorded in the job",
    );
  }, 60_000);
});
