import { describe, expect, it } from "vitest";
import { rolloutStateOf } from "../../../../src/jobs/store/rollout-record.js";
import { APPROVER, GROUP_APPROVER, REQUESTER, STRANGER, textOf, useHarness } from "../harness.js";
import { finalReport, loadJob, simTimePasses, startAtFirstRestart, totalRestarts } from "../rollout-steps.js";

const startHarness = useHarness();

describe("/connect-roll pause|resume <cluster>", () => {
  it("pause lets the current step finish and restarts nothing more; resume continues it to success", async () => {
    const harness = await startHarness();
    const { parent, jobId } = await startAtFirstRestart(harness);

    const pause = await harness.command("pause sim", { user: REQUESTER });
    expect(pause.json()).toMatchObject({ response_type: "ephemeral" });
    expect(pause.text).toContain("Pause requested");
    const pausedNote = await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("Paused by")),
      10_000,
      "paused note",
    );
    expect(pausedNote.text).toContain(`Paused by <@${REQUESTER}>`);
    const beforeStep = Number(/before step (\d+)/.exec(pausedNote.text)?.[1]);
    expect(beforeStep).toBeGreaterThanOrEqual(2);

    // The step in flight finished (settled), and the next one was not started.
    const paused = rolloutStateOf(await loadJob(harness, jobId));
    expect(paused.phase).toMatchObject({ kind: "paused", step: beforeStep, by: REQUESTER });
    expect(paused.steps[beforeStep - 2]?.status).toBe("settled");
    expect(paused.steps[beforeStep - 1]?.status).toBe("pending");
    const restartsWhenPaused = totalRestarts(harness);
    expect(restartsWhenPaused).toBe(beforeStep - 1);
    await harness.waitFor(
      () => textOf(harness.thread(parent.ts).parent).includes(`paused by <@${REQUESTER}>`) || undefined,
      5000,
      "parent shows who paused",
    );

    // Several steps' worth of simulated time later, still paused and nothing restarted.
    await simTimePasses(harness, 20_000);
    expect(totalRestarts(harness)).toBe(restartsWhenPaused);
    expect(rolloutStateOf(await loadJob(harness, jobId)).phase.kind).toBe("paused");
    expect(harness.thread(parent.ts).replies.some((r) => r.text.includes("succeeded after"))).toBe(false);

    // A stranger cannot resume it: ephemeral refusal, the control record is unchanged, it stays paused.
    const refused = await harness.command("resume sim", { user: STRANGER });
    expect(refused.json()).toMatchObject({ response_type: "ephemeral" });
    expect(refused.text).toContain("You may not do that");
    const control = (await loadJob(harness, jobId)).control;
    expect(control).toMatchObject({ pause: true, by: REQUESTER });
    await simTimePasses(harness, 5_000);
    expect(totalRestarts(harness)).toBe(restartsWhenPaused);

    const resume = await harness.command("resume sim", { user: APPROVER });
    expect(resume.text).toContain("Resume requested");
    const resumedNote = await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("Resumed by")),
      10_000,
      "resumed note",
    );
    expect(resumedNote.text).toContain(`Resumed by <@${APPROVER}> at step ${beforeStep}`);
    await finalReport(harness, parent.ts, "succeeded");
    const { restarts: perWorker } = harness.sim.cluster.state().counters;
    expect(Object.values(perWorker)).toEqual([1, 1, 1]);
    await harness.waitFor(
      () => textOf(harness.thread(parent.ts).parent).includes("succeeded") || undefined,
      5000,
      "parent shows the result",
    );
    const audit = await harness.replicas[0]?.store.readAudit(jobId);
    expect(audit?.filter((e) => e.action === "paused").map((e) => e.actor)).toEqual([REQUESTER]);
    expect(audit?.filter((e) => e.action === "resumed").map((e) => e.actor)).toEqual([APPROVER]);
  });

  it("a user who is not a requester (a stranger, an approver only) cannot pause: ephemeral refusal, nothing changes", async () => {
    const harness = await startHarness();
    const { parent, jobId } = await startAtFirstRestart(harness);
    for (const user of [STRANGER, GROUP_APPROVER]) {
      const refused = await harness.command("pause sim", { user });
      expect(refused.status).toBe(200);
      expect(refused.json()).toMatchObject({ response_type: "ephemeral" });
      expect(refused.text).toContain("You may not do that");
      expect(refused.text).not.toContain("Pause requested");
    }
    expect((await loadJob(harness, jobId)).control).toBeNull();

    await finalReport(harness, parent.ts, "succeeded");
    const thread = harness.thread(parent.ts);
    expect(thread.replies.some((r) => r.text.includes("Paused by"))).toBe(false);
    expect(totalRestarts(harness)).toBe(3);
    const audit = await harness.replicas[0]?.store.readAudit(jobId);
    expect(audit?.some((e) => e.action === "paused")).toBe(false);
  });
});
