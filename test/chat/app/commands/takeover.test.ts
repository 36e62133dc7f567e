import { describe, expect, it } from "vitest";
import { rolloutStateOf } from "../../../../src/jobs/store/rollout-record.js";
import { CHANNEL, type Harness, textOf, useHarness } from "../harness.js";
import { startOnReplicaA } from "../rollout-steps.js";

const startHarness = useHarness();

const LOCK_TTL_MS = 1500;

/**
 * Waits (on the checkpoints in Redis) until step 1 has settled and step 2's restart has been acknowledged, i.e. A is
 * waiting for worker-2 to come back or for the gate. Crashing there is deterministic: had A died between its
 * "restarting" checkpoint and sending the restart, the new owner could not confirm it and would rightly ask a person
 * ("restart unconfirmed") instead of restarting it again.
 */
async function afterFirstStepSettled(harness: Harness, jobId: string): Promise<void> {
  const reader = harness.replicas[1];
  if (reader === undefined) throw new Error("no replica 1");
  await harness.waitFor(
    async () => {
      const [first, second] = rolloutStateOf(await reader.store.loadJob(jobId)).steps;
      return (
        first?.status === "settled" && (second?.status === "waiting-back" || second?.status === "settling")
      );
    },
    15_000,
    "step 1 settled and step 2 restarted",
  );
}

describe("a replica dies in the middle of a rollout", () => {
  it("its lease expires, another replica's sweeper resumes the job in the same thread and no worker is restarted twice", async () => {
    const harness = await startHarness({ replicas: 2, lockTtlMs: LOCK_TTL_MS, orphanSweepMs: 200 });
    const { b, ack, parent, jobId } = await startOnReplicaA(harness);
    expect(ack.text).toContain("Starting the rollout of sim to v3.7");
    expect(b.runtime.service.running()).toHaveLength(0);

    // A's first step settles and worker-2 is restarted (as checkpointed in Redis), then A dies without its graceful
    // shutdown.
    await afterFirstStepSettled(harness, jobId);
    const beforeCrash = await b.store.loadJob(jobId);
    expect(beforeCrash.owner).toBe("replica-0");
    await harness.crash(0);

    // The lock is not released: it stays A's until its lease expires, then B's sweeper takes the job over.
    const held = await b.store.readLock("sim");
    expect(held?.jobId).toBe(jobId);
    expect(held?.owner).toBe("replica-0");
    await harness.waitFor(
      () => b.runtime.service.running().includes(jobId),
      LOCK_TTL_MS + 10_000,
      "B takes the job over",
    );
    const resumedNote = await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("Resumed by replica `replica-1`")),
      5000,
      "'resumed by' note in the thread",
    );
    expect(resumedNote.threadTs).toBe(parent.ts);

    const report = await harness
      .waitFor(
        () => harness.thread(parent.ts).replies.find((r) => r.text.includes("succeeded after")),
        20_000,
        "final report",
      )
      .catch((e: unknown) => {
        const t = harness.thread(parent.ts);
        throw new Error(`${String(e)}\n${[t.parent, ...t.replies].map((m) => m.text).join("\n")}`);
      });
    expect(report.threadTs).toBe(parent.ts);
    const replies = harness.thread(parent.ts).replies;
    expect(replies.indexOf(report)).toBeGreaterThan(replies.indexOf(resumedNote));

    // One parent, still the same message: B adopted it and kept updating it in place.
    expect(harness.parents()).toHaveLength(1);
    await harness.waitFor(
      () => textOf(harness.thread(parent.ts).parent).includes("succeeded") || undefined,
      5000,
      "parent shows the result",
    );
    const posts = harness.fake.calls("chat.postMessage");
    expect(posts.filter((c) => c.params.thread_ts === undefined)).toHaveLength(1);
    const notePost = posts.find((c) => String(c.params.text).includes("Resumed by replica"));
    const updatedAfterTakeover = harness.fake
      .calls("chat.update")
      .filter((c) => c.params.ts === parent.ts && c.at >= (notePost?.at ?? Number.POSITIVE_INFINITY));
    expect(updatedAfterTakeover.length).toBeGreaterThan(0);

    // One reply per step: the step A was in the middle of is A's message, edited by B (no stale copy left behind).
    for (const n of [1, 2, 3])
      expect(
        replies.filter((r) => r.text.startsWith(`Step ${n}/3 `)),
        `step ${n} replies`,
      ).toHaveLength(1);
    const step2 = replies.find((r) => r.text.startsWith("Step 2/3 "));
    const step2Post = posts.find((c) => c.ok && String(c.params.text).startsWith("Step 2/3 "));
    expect(step2Post?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(notePost?.at ?? 0);
    expect(
      harness.fake
        .calls("chat.update")
        .some((c) => c.params.ts === step2?.ts && c.at >= (notePost?.at ?? Number.POSITIVE_INFINITY)),
    ).toBe(true);
    // The final report is also shown in the channel (reply_broadcast).
    const reportPost = posts.find((c) => String(c.params.text).includes("succeeded after"));
    expect(String(reportPost?.params.reply_broadcast)).toBe("true");
    expect(harness.fake.store.channelTimeline(CHANNEL).map((m) => m.ts)).toEqual([parent.ts, report.ts]);

    // Each worker restarted exactly once, all on the target; the job finished under B with a higher fence.
    const { restarts } = harness.sim.cluster.state().counters;
    expect(Object.keys(restarts)).toHaveLength(3);
    expect(Object.values(restarts).every((n) => n === 1)).toBe(true);
    expect(harness.sim.cluster.state().workers.every((w) => w.version.startsWith("3.7"))).toBe(true);
    const finished = await harness.waitFor(
      async () => {
        const job = await b.store.loadJob(jobId);
        return job.status === "running" ? undefined : job;
      },
      5000,
      "job finished",
    );
    expect(finished.owner).toBe("replica-1");
    expect(finished.fence).toBeGreaterThan(beforeCrash.fence);
    await harness.waitFor(async () => (await b.store.readLock("sim")) === null, 5000, "lock released");
  });
  it("an abort asked while the dead replica's lease runs out is honoured by the replica that takes the job over", async () => {
    const harness = await startHarness({ replicas: 2, lockTtlMs: LOCK_TTL_MS, orphanSweepMs: 200 });
    const { b, parent, jobId } = await startOnReplicaA(harness);
    await afterFirstStepSettled(harness, jobId);
    await harness.crash(0);

    // Nobody runs the job now; the abort is recorded in Redis for whoever resumes it.
    const abort = await harness.command("abort sim", { replica: 1 });
    expect(abort.text).toContain("Abort requested");
    expect(b.runtime.service.running()).toHaveLength(0);
    // The workers A had restarted (worker-1, worker-2; the checkpoint is the reference, as the simulator counts a
    // restart only once the worker is back): no other worker may be restarted after the abort.
    const issued = rolloutStateOf(await b.store.loadJob(jobId))
      .steps.filter((s) => s.attempts > 0)
      .map((s) => s.worker);
    expect(issued).toHaveLength(2);

    const report = await harness
      .waitFor(
        () => harness.thread(parent.ts).replies.find((r) => /(succeeded|aborted|failed) after/.test(r.text)),
        20_000,
        "final report",
      )
      .catch((e: unknown) => {
        const t = harness.thread(parent.ts);
        throw new Error(`${String(e)}\n${[t.parent, ...t.replies].map((m) => m.text).join("\n")}`);
      });
    expect(
      harness.thread(parent.ts).replies.some((r) => r.text.includes("Resumed by replica `replica-1`")),
    ).toBe(true);
    expect(report.text).toContain("aborted after");
    const { restarts } = harness.sim.cluster.state().counters;
    for (const [worker, count] of Object.entries(restarts))
      expect(count).toBe(issued.includes(worker) ? 1 : 0);
    const finished = await b.store.loadJob(jobId);
    expect(finished.status).toBe("aborted");
    expect(finished.owner).toBe("replica-1");
  });
});
