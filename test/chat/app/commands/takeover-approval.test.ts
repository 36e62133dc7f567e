import { describe, expect, it } from "vitest";
import { ActionId } from "../../../../src/chat/action-ids.js";
import { findButton, textOf, useHarness } from "../harness.js";
import { approveAndWait, finalReport, startOnReplicaA } from "../rollout-steps.js";

const startHarness = useHarness();

describe("a replica dies while its rollout waits for an approval", () => {
  it("the replica that takes it over keeps the same prompt: a click on it is honoured and the prompt is updated in place", async () => {
    const harness = await startHarness({
      version: "2.2.2",
      replicas: 2,
      lockTtlMs: 1500,
      orphanSweepMs: 200,
    });
    const { b, parent, jobId } = await startOnReplicaA(harness);
    const approve = await harness.waitFor(
      () => findButton(harness.thread(parent.ts), ActionId.Approve),
      15_000,
      "approval prompt",
    );
    // The prompt's ts is in the job record before A dies.
    await harness.waitFor(
      async () => Object.values((await b.store.loadJob(jobId)).messages ?? {}).includes(approve.ts),
      5000,
      "prompt ts recorded",
    );
    await harness.crash(0);
    await harness.waitFor(() => b.runtime.service.running().includes(jobId), 10_000, "B takes the job over");
    await harness.waitFor(
      () => harness.thread(parent.ts).replies.some((r) => r.text.includes("Resumed by replica `replica-1`")),
      5000,
      "resumed note",
    );

    await approveAndWait(harness, { parent, approve }, { replica: 1, what: "the same prompt updated by B" });
    await finalReport(harness, parent.ts, "succeeded");
    const prompts = harness
      .thread(parent.ts)
      .replies.filter((r) => textOf(r).includes("Approval needed") || textOf(r).includes("Approved by"));
    expect(prompts.map((p) => p.ts)).toEqual([approve.ts]);
    expect(Object.values(harness.sim.cluster.state().counters.restarts)).toEqual([1, 1, 1]);
  });
});
