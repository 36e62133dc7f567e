import { describe, expect, it } from "vitest";
import { rolloutStateOf } from "../../../../src/jobs/store/rollout-record.js";
import { REQUESTER, useHarness } from "../harness.js";
import { startOnReplicaA } from "../rollout-steps.js";

const startHarness = useHarness();

describe("pause and resume through replicas whose clocks disagree", () => {
  it("a resume asked on a replica ten minutes behind still follows the pause: requests are ordered by the store's sequence", async () => {
    const harness = await startHarness({ replicas: 2, clockSkewMs: [0, -10 * 60_000] });
    const { b, parent, jobId } = await startOnReplicaA(harness);

    expect((await harness.command("pause sim", { replica: 0, user: REQUESTER })).text).toContain(
      "Pause requested",
    );
    await harness.waitFor(
      async () => rolloutStateOf(await b.store.loadJob(jobId)).phase.kind === "paused",
      10_000,
      "paused",
    );
    const resume = await harness.command("resume sim", { replica: 1, user: REQUESTER });
    expect(resume.text).toContain("Resume requested");
    const control = (await b.store.loadJob(jobId)).control;
    // The resume's wall-clock time is older than the pause's; its sequence number is not.
    expect(control).toMatchObject({ pause: false, seq: 2 });

    await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("succeeded after")),
      20_000,
      "final report",
    );
    expect(harness.thread(parent.ts).replies.some((r) => r.text.includes("Resumed by"))).toBe(true);
    expect(Object.values(harness.sim.cluster.state().counters.restarts)).toEqual([1, 1, 1]);
  });
});
