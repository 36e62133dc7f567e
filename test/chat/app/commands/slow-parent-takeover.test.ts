import { afterEach, describe, expect, it } from "vitest";
import { rolloutStateOf } from "../../../../src/jobs/rollout-record.js";
import { type Harness, startHarness } from "../harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the thread parent is slower than the start", () => {
  it("the job starts, records its thread once the parent is posted, and the replica that takes it over reports there", async () => {
    h = await startHarness({
      replicas: 2,
      lockTtlMs: 1500,
      orphanSweepMs: 200,
      parentWaitMs: 200,
      simSpeed: 5,
    });
    const harness = h;
    const [a, b] = harness.replicas;
    if (a === undefined || b === undefined) throw new Error("two replicas expected");
    // Slack takes 1 s to post the parent: far beyond the 200 ms the start waits for it.
    harness.fake.failNext("chat.postMessage", { delayMs: 1000 });
    await harness.command("sim v3.7", { replica: 0 });
    const jobId = await harness.waitFor(() => a.runtime.service.running()[0], 5000, "job running on A");
    expect((await b.store.loadJob(jobId)).thread).toBeNull();

    const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
    const recorded = await harness.waitFor(
      async () => (await b.store.loadJob(jobId)).thread ?? undefined,
      5000,
      "thread recorded in the job",
    );
    expect(recorded).toEqual({ channel: parent.channel, ts: parent.ts });

    await harness.waitFor(
      async () => {
        const [first, second] = rolloutStateOf(await b.store.loadJob(jobId)).steps;
        return (
          first?.status === "settled" && (second?.status === "waiting-back" || second?.status === "settling")
        );
      },
      15_000,
      "step 1 settled and step 2 restarted",
    );
    // A's replies for steps 1 and 2 are out (they queued behind the slow parent) and their ts are in the job.
    const stepTs = await harness.waitFor(
      async () => {
        const messages = (await b.store.loadJob(jobId)).messages ?? {};
        return messages[`${jobId}:step:2`] === undefined ? undefined : messages;
      },
      5000,
      "step replies recorded",
    );
    expect(Object.keys(stepTs)).toContain(`${jobId}:step:1`);
    await harness.crash(0);

    await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("succeeded after")),
      25_000,
      "final report in the same thread",
    );
    expect(
      harness.thread(parent.ts).replies.some((r) => r.text.includes("Resumed by replica `replica-1`")),
    ).toBe(true);
    expect(harness.parents()).toHaveLength(1);
    const replies = harness.thread(parent.ts).replies;
    for (const n of [1, 2, 3])
      expect(replies.filter((r) => r.text.startsWith(`Step ${n}/3 `))).toHaveLength(1);
    // B edited A's step replies in place: the ts values it recorded are those A posted.
    const finished = await b.store.loadJob(jobId);
    expect(finished.messages?.[`${jobId}:step:2`]).toBe(stepTs[`${jobId}:step:2`]);
    expect(Object.values(harness.sim.cluster.state().counters.restarts)).toEqual([1, 1, 1]);
  });
});
