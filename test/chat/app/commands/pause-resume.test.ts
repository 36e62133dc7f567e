import { afterEach, describe, expect, it } from "vitest";
import { rolloutStateOf } from "../../../../src/jobs/store/rollout-record.js";
import {
  APPROVER,
  GROUP_APPROVER,
  type Harness,
  REQUESTER,
  STRANGER,
  startHarness,
  textOf,
} from "../harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const restarts = (harness: Harness) =>
  Object.values(harness.sim.cluster.state().counters.restarts).reduce((a, b) => a + b, 0);

/** Starts `sim v3.7` and waits until the first worker's restart has been issued. */
async function startAtFirstRestart(harness: Harness) {
  const ack = await harness.command("sim v3.7", { user: REQUESTER });
  expect(ack.status).toBe(200);
  const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
  const jobId = await harness.waitFor(
    () => harness.replicas[0]?.runtime.service.running()[0],
    5000,
    "job running",
  );
  await harness.waitFor(() => restarts(harness) >= 1, 10_000, "first restart");
  return { parent, jobId };
}

async function loadJob(harness: Harness, jobId: string) {
  const replica = harness.replicas[0];
  if (replica === undefined) throw new Error("no replica");
  return replica.store.loadJob(jobId);
}

const finalReport = (harness: Harness, parentTs: string) =>
  harness
    .waitFor(
      () => harness.thread(parentTs).replies.find((r) => r.text.includes("succeeded after")),
      20_000,
      "final report",
    )
    .catch((e: unknown) => {
      const t = harness.thread(parentTs);
      throw new Error(`${String(e)}\n${[t.parent, ...t.replies].map((m) => m.text).join("\n")}`);
    });

/** Waits until the simulator's clock has moved `ms` on (a step's restart and gate take far less). */
async function simTimePasses(harness: Harness, ms: number): Promise<void> {
  const until = harness.sim.clock.now() + ms;
  await harness.waitFor(() => harness.sim.clock.now() >= until, 10_000, `${ms} simulated ms`);
}

describe("/connect-roll pause|resume <cluster>", () => {
  it("pause lets the current step finish and restarts nothing more; resume continues it to success", async () => {
    h = await startHarness();
    const harness = h;
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
    const restartsWhenPaused = restarts(harness);
    expect(restartsWhenPaused).toBe(beforeStep - 1);
    await harness.waitFor(
      () => textOf(harness.thread(parent.ts).parent).includes(`paused by <@${REQUESTER}>`) || undefined,
      5000,
      "parent shows who paused",
    );

    // Several steps' worth of simulated time later, still paused and nothing restarted.
    await simTimePasses(harness, 20_000);
    expect(restarts(harness)).toBe(restartsWhenPaused);
    expect(rolloutStateOf(await loadJob(harness, jobId)).phase.kind).toBe("paused");
    expect(harness.thread(parent.ts).replies.some((r) => r.text.includes("succeeded after"))).toBe(false);

    // A stranger cannot resume it: ephemeral refusal, the control record is unchanged, it stays paused.
    const refused = await harness.command("resume sim", { user: STRANGER });
    expect(refused.json()).toMatchObject({ response_type: "ephemeral" });
    expect(refused.text).toContain("You may not do that");
    const control = (await loadJob(harness, jobId)).control;
    expect(control).toMatchObject({ pause: true, by: REQUESTER });
    await simTimePasses(harness, 5_000);
    expect(restarts(harness)).toBe(restartsWhenPaused);

    const resume = await harness.command("resume sim", { user: APPROVER });
    expect(resume.text).toContain("Resume requested");
    const resumedNote = await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => r.text.includes("Resumed by")),
      10_000,
      "resumed note",
    );
    expect(resumedNote.text).toContain(`Resumed by <@${APPROVER}> at step ${beforeStep}`);
    await finalReport(harness, parent.ts);
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
    h = await startHarness();
    const harness = h;
    const { parent, jobId } = await startAtFirstRestart(harness);
    for (const user of [STRANGER, GROUP_APPROVER]) {
      const refused = await harness.command("pause sim", { user });
      expect(refused.status).toBe(200);
      expect(refused.json()).toMatchObject({ response_type: "ephemeral" });
      expect(refused.text).toContain("You may not do that");
      expect(refused.text).not.toContain("Pause requested");
    }
    expect((await loadJob(harness, jobId)).control).toBeNull();

    await finalReport(harness, parent.ts);
    const thread = harness.thread(parent.ts);
    expect(thread.replies.some((r) => r.text.includes("Paused by"))).toBe(false);
    expect(restarts(harness)).toBe(3);
    const audit = await harness.replicas[0]?.store.readAudit(jobId);
    expect(audit?.some((e) => e.action === "paused")).toBe(false);
  });
});
