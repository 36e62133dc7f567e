import { describe, expect, it } from "vitest";
import { rolloutStateOf } from "../../../../src/jobs/store/rollout-record.js";
import { useHarness } from "../harness.js";
import { twoReplicas } from "../rollout-steps.js";

const startHarness = useHarness();

describe("the thread parent is slow to post", () => {
  it("the job starts only once its parent is posted, with its thread from the first record; the replica that takes it over reports there", async () => {
    const harness = await startHarness({ replicas: 2, lockTtlMs: 1500, orphanSweepMs: 200, simSpeed: 5 });
    const [a, b] = twoReplicas(harness);
    // Slack takes 1 s to post the parent (the start waits up to 3 s in this harness).
    harness.fake.failNext("chat.postMessage", { delayMs: 1000 });
    await harness.command("sim v3.7", { replica: 0 });
    const jobId = await harness.waitFor(() => a.runtime.service.running()[0], 5000, "job running on A");
    const parent = harness.parents()[0];
    expect(parent).toBeDefined();
    // The job was created with its thread (startRollout takes one: a job never exists without it).
    expect((await b.store.loadJob(jobId)).thread).toEqual({ channel: parent?.channel, ts: parent?.ts });
    const parentTs = parent?.ts ?? "";

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
      () => harness.thread(parentTs).replies.find((r) => r.text.includes("succeeded after")),
      25_000,
      "final report in the same thread",
    );
    expect(
      harness.thread(parentTs).replies.some((r) => r.text.includes("Resumed by replica `replica-1`")),
    ).toBe(true);
    expect(harness.parents()).toHaveLength(1);
    const replies = harness.thread(parentTs).replies;
    for (const n of [1, 2, 3])
      expect(replies.filter((r) => r.text.startsWith(`Step ${n}/3 `))).toHaveLength(1);
    // B edited A's step replies in place: the ts values it recorded are those A posted.
    const finished = await b.store.loadJob(jobId);
    expect(finished.messages?.[`${jobId}:step:2`]).toBe(stepTs[`${jobId}:step:2`]);
    expect(Object.values(harness.sim.cluster.state().counters.restarts)).toEqual([1, 1, 1]);
  });
});

describe("the thread parent is not posted in time", () => {
  it("nothing is started, the requester is told, and a parent posted late says the rollout did not start", async () => {
    const harness = await startHarness({ parentWaitMs: 300 });
    harness.fake.failNext("chat.postMessage", { delayMs: 1500 });
    const ack = await harness.command("sim v3.7");
    expect(ack.text).toContain("Starting the rollout of sim");
    const told = await harness.waitFor(
      () => harness.responses.find((r) => String(r.text).includes("Slack is too slow right now")),
      5000,
      "the requester told",
    );
    expect(JSON.stringify(told)).toContain("Nothing was started");
    expect(await harness.replicas[0]?.store.listJobs()).toEqual([]);
    expect(await harness.replicas[0]?.store.readLock("sim")).toBeNull();
    await harness.waitFor(
      () => harness.parents()[0]?.text.includes("not started: Slack took too long"),
      5000,
      "late parent marked not started",
    );
    expect(Object.values(harness.sim.cluster.state().counters.restarts).every((n) => n === 0)).toBe(true);
  });
});
