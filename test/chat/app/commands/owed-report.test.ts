import { describe, expect, it } from "vitest";
import { threadKeys } from "../../../../src/chat/thread-reporter.js";
import { createRedisKeys } from "../../../../src/jobs/redis/redis-keys.js";
import { useHarness } from "../harness.js";
import { finalReport, loadJob, startAtFirstRestart } from "../rollout-steps.js";

const startHarness = useHarness();

/** Long enough for the claimer to post and record the report; short enough to wait out in the test. */
const CLAIM_TTL_MS = 2_000;

describe("a replica that dies after finishing a rollout, before posting its final report", () => {
  it("leaves the report to exactly one other replica's sweep, in the same thread and recorded; later sweeps post no second one", async () => {
    const harness = await startHarness({
      replicas: 3,
      owedReports: { graceMs: 0, claimTtlMs: CLAIM_TTL_MS },
    });
    const [a, b, c] = harness.replicas;
    if (a === undefined || b === undefined || c === undefined) throw new Error("three replicas expected");
    const { parent, jobId } = await startAtFirstRestart(harness);
    // From the first restart on, Slack holds every post and upload back: A's report is queued when it finishes.
    for (const method of ["chat.postMessage", "files.getUploadURLExternal"])
      harness.fake.failNext(method, { status: 429, retryAfterSeconds: 1, times: 100_000 });
    await harness.waitFor(
      async () =>
        (await loadJob(harness, jobId)).status === "succeeded" && (await b.store.readLock("sim")) === null,
      30_000,
      "the job finished on A and its lock released",
    );
    // A dies there: what it had not sent is gone, and the record owes its thread the report.
    await harness.crash(0);
    harness.fake.clearFailures();
    const says = /succeeded after/;
    const reports = () => harness.thread(parent.ts).replies.filter((r) => says.test(r.text));
    expect(reports()).toEqual([]);
    const owed = await b.store.loadJob(jobId);
    expect(owed.thread).toEqual({ channel: parent.channel, ts: parent.ts });
    expect(owed.messages?.[threadKeys.report(jobId)]).toBeUndefined();

    // B and C sweep at the same time: one claims the report and posts it.
    const [fromB, fromC] = await Promise.all([b.runtime.sweep(), c.runtime.sweep()]);
    expect([...fromB.reports, ...fromC.reports]).toEqual([jobId]);
    const report = await finalReport(harness, parent.ts, "succeeded");
    expect(report.threadTs).toBe(parent.ts);
    expect(report.broadcast).toBe(true);
    await harness.waitFor(
      async () => (await b.store.loadJob(jobId)).messages?.[threadKeys.report(jobId)] === report.ts,
      5_000,
      "the report's ts recorded in the job",
    );
    await harness.waitFor(
      () => harness.fake.calls("files.completeUploadExternal").some((call) => call.ok),
      15_000,
      "the chart uploaded under it",
    );

    // Once the claim has lapsed, only the recorded ts keeps the others off: neither posts it again.
    const claim = createRedisKeys(harness.prefix).reportClaim("sim", jobId);
    await harness.waitFor(async () => (await b.redis.exists(claim)) === 0, 10_000, "the claim lapsed");
    const again = await Promise.all([b.runtime.sweep(), c.runtime.sweep()]);
    expect(again.flatMap((r) => r.reports)).toEqual([]);
    await harness.waitFor(
      async () => {
        const flushed = await Promise.all([b.runtime.notifier.flush(5_000), c.runtime.notifier.flush(5_000)]);
        return flushed.every((f) => f.kind === "flushed");
      },
      10_000,
      "B's and C's notifiers idle",
    );
    expect(reports().map((r) => r.ts)).toEqual([report.ts]);
    expect(harness.parents()).toHaveLength(1);
  }, 60_000);
});
