import { describe, expect, it } from "vitest";
import { FleetActionId } from "../../../../src/chat/action-ids.js";
import type { FleetRunRecord } from "../../../../src/jobs/store/fleet-record.js";
import type { RunningSim } from "../../../../src/sim/start-sim.js";
import { restartTotals } from "../../../cli/support/fleet-fixtures.js";
import { APPROVER, findButton, type Harness, REQUESTER, STRANGER, textOf, useHarness } from "../harness.js";

const startHarness = useHarness();
const CLUSTERS = ["staging", "prod-eu", "prod-us"] as const;
const STAGES = [["staging"], ["prod-eu", "prod-us"]];

/** The fleet `rollout` over three simulated clusters of their own, in two stages. */
const withFleet = (fleet: Record<string, unknown>, over: Parameters<typeof startHarness>[0] = {}) =>
  startHarness({ fleetSims: CLUSTERS, fleets: { rollout: { stages: STAGES, ...fleet } }, ...over });

const fleetRun = async (h: Harness): Promise<FleetRunRecord | null> =>
  (await h.replicas.at(-1)?.store.loadFleetRun("rollout")) ?? null;

/** Every worker of each simulated cluster restarted exactly once. */
function everyWorkerOnce(sims: ReadonlyMap<string, RunningSim>): void {
  for (const [name, sim] of sims) {
    const restarts = sim.cluster.state().counters.restarts;
    expect(Object.keys(restarts).sort(), name).toEqual(sim.workers.map((w) => w.name).sort());
    expect(
      Object.values(restarts).every((n) => n === 1),
      `${name}: ${JSON.stringify(restarts)}`,
    ).toBe(true);
  }
}

/** The fleet's run once its status is `status`. */
const untilFleet = (h: Harness, status: FleetRunRecord["status"], timeoutMs: number, what: string) =>
  h.waitFor(
    async () => {
      const run = await fleetRun(h);
      return run?.status === status ? run : null;
    },
    timeoutMs,
    what,
  );

/** The fleet thread's replies as one text, once they include `text` (the summary is posted after the run's end). */
const untilReplies = (h: Harness, parentTs: string, text: string) =>
  h.waitFor(
    () => {
      const all = h.thread(parentTs).replies.map(textOf).join("\n");
      return all.includes(text) ? all : null;
    },
    5_000,
    "the fleet's summary in its thread",
  );

/** Two replicas; the fleet started on replica 0 and rolling staging (a worker restarted): ready to lose replica 0. */
async function rollingOnReplica0() {
  const h = await withFleet(
    { soakBetweenMs: 0, approvals: "none" },
    { replicas: 2, lockTtlMs: 1_500, orphanSweepMs: 300 },
  );
  await h.command("fleet rollout v3.7", { user: REQUESTER, replica: 0 });
  const parent = await fleetParent(h);
  await h.waitFor(() => (restartTotals(h.fleetSims).staging ?? 0) >= 1, 30_000, "staging restarting");
  return { h, parent };
}

/** The fleet's parent message in the channel (its thread holds the fleet's events and stage prompts). */
const fleetParent = (h: Harness) =>
  h.waitFor(
    () => h.parents().find((m) => textOf(m).includes("fleet rollout run fl-")),
    10_000,
    "fleet parent",
  );

describe("/connect-roll fleet <fleet> <version>", () => {
  it("rolls 3 clusters in 2 stages from Slack: a fleet thread, stage 2 approved by its button, a thread per cluster, every worker once", async () => {
    const h = await withFleet({ soakBetweenMs: 1_000, approvals: "after-first" });
    const answer = await h.command("fleet rollout v3.7", { user: REQUESTER });
    expect(answer.text).toContain("Starting fleet rollout → v3.7");
    const parent = await fleetParent(h);
    const prompt = await h.waitFor(
      () => findButton(h.thread(parent.ts), FleetActionId.ApproveStage),
      60_000,
      "stage 2's prompt",
    );
    // Stage 1 rolled and soaked; stage 2 waits for a person.
    expect(restartTotals(h.fleetSims)).toEqual({ staging: 3, "prod-eu": 0, "prod-us": 0 });
    expect((await fleetRun(h))?.stages.map((s) => s.status)).toEqual(["succeeded", "awaiting-approval"]);
    // The requester may not approve their own fleet's stage (four eyes): nothing starts.
    await h.click({
      actionId: FleetActionId.ApproveStage,
      value: prompt.value,
      messageTs: prompt.ts,
      user: REQUESTER,
    });
    await h.waitFor(
      () =>
        h.fake.store
          .ephemerals("CROLL0001", REQUESTER)
          .find((e) => JSON.stringify(e).includes("Nothing was changed")),
      5_000,
      "the requester's click refused",
    );
    expect((await fleetRun(h))?.stages[1]?.status).toBe("awaiting-approval");
    await h.click({
      actionId: FleetActionId.ApproveStage,
      value: prompt.value,
      messageTs: prompt.ts,
      user: APPROVER,
    });
    const done = await untilFleet(h, "succeeded", 60_000, "the fleet to succeed");
    everyWorkerOnce(h.fleetSims);
    expect(done.thread).toEqual({ channel: "CROLL0001", ts: parent.ts });
    expect(done.stages.flatMap((s) => s.clusters.map((c) => c.job))).toEqual([
      expect.stringMatching(/^cr-/),
      expect.stringMatching(/^cr-/),
      expect.stringMatching(/^cr-/),
    ]);
    // The parent follows the run; the thread says each step, links each cluster's own rollout thread, and the prompt
    // says who approved.
    await h.waitFor(
      () => textOf(h.thread(parent.ts).parent).includes("succeeded: 2 stages"),
      5_000,
      "parent final",
    );
    const parentText = textOf(h.thread(parent.ts).parent);
    expect(parentText).toMatch(
      /stage 2\/2 succeeded: prod-eu succeeded \(job cr-[0-9a-f]{8}\), prod-us succeeded/,
    );
    const replies = await untilReplies(h, parent.ts, "succeeded: 2 stages, every cluster on v3.7");
    for (const c of CLUSTERS) expect(replies).toMatch(new RegExp(`${c}: rolling \\(job cr-[0-9a-f]{8}\\)`));
    expect(replies).toContain("stage 1/2 (staging): soaking 1s before the next stage");
    expect(replies).toContain(`stage 2/2 (prod-eu, prod-us): approved by <@${APPROVER}>, starting`);
    expect(replies).toContain("succeeded: 2 stages, every cluster on v3.7");
    // Each cluster's rollout reported in a thread of its own in the channel.
    // The fleet's timeline chart goes to its thread: a lane per cluster.
    await h.command("fleet status rollout --chart", { user: REQUESTER });
    const chart = await h.waitFor(
      () => h.thread(parent.ts).replies.find((r) => (r.files ?? []).length > 0),
      10_000,
      "the fleet's chart in its thread",
    );
    expect(chart.files?.[0]).toMatchObject({
      mimetype: "image/png",
      title: "fleet rollout → v3.7: succeeded",
    });
    expect(chart.files?.[0]?.name).toMatch(/^connect-roll-fleet-rollout-fl-[0-9a-f]{8}\.png$/);
    const others = h.parents().filter((m) => m.ts !== parent.ts);
    expect(others).toHaveLength(3);
    for (const c of CLUSTERS) expect(others.filter((m) => textOf(m).includes(c))).toHaveLength(1);
  });

  it("refuses in one line, starting nothing: an unknown fleet, a stranger, a second run while one holds the fleet", async () => {
    const h = await withFleet({ soakBetweenMs: 0, approvals: "every-stage" });
    expect((await h.command("fleet nowhere v3.7")).text).toContain("Unknown fleet 'nowhere'");
    expect((await h.command("fleet rollout v3.7", { user: STRANGER })).text).toContain("Fleet not started");
    expect((await h.command("fleet rollout nonsense")).text).toContain("is neither a version");
    await h.command("fleet rollout v3.7", { user: REQUESTER });
    const parent = await fleetParent(h);
    await h.waitFor(
      () => findButton(h.thread(parent.ts), FleetActionId.ApproveStage),
      10_000,
      "stage 1's prompt",
    );
    const again = await h.command("fleet rollout v3.7", { user: REQUESTER });
    expect(again.text).toMatch(/fleet rollout is already running \(run fl-[0-9a-f]{8} by replica-0/);
    expect(restartTotals(h.fleetSims)).toEqual({ staging: 0, "prod-eu": 0, "prod-us": 0 });
  });

  it("refuses a fleet whose first stage's cluster another rollout holds, naming it", async () => {
    const h = await withFleet({ soakBetweenMs: 0, approvals: "none" });
    await h.replicas[0]?.store.acquireLock("staging", {
      jobId: "cr-0000beef",
      owner: "replica-9",
      ttlMs: 60_000,
    });
    const refused = await h.command("fleet rollout v3.7", { user: REQUESTER });
    expect(refused.text).toContain("Fleet not started");
    expect(refused.text).toContain("staging: staging is locked by job cr-0000beef (replica-9)");
    expect(await fleetRun(h)).toBeNull();
  });

  it("the stage prompt's Abort aborts the fleet: no stage after it starts", async () => {
    const h = await withFleet({ soakBetweenMs: 0, approvals: "after-first" });
    await h.command("fleet rollout v3.7", { user: REQUESTER });
    const parent = await fleetParent(h);
    const prompt = await h.waitFor(
      () => findButton(h.thread(parent.ts), FleetActionId.AbortFleet),
      60_000,
      "stage 2's prompt",
    );
    await h.click({
      actionId: FleetActionId.AbortFleet,
      value: prompt.value,
      messageTs: prompt.ts,
      user: APPROVER,
    });
    const ended = await untilFleet(h, "aborted", 10_000, "the fleet aborted");
    expect(ended.reason).toBe(`aborted by ${APPROVER} before stage 2/2 (prod-eu, prod-us)`);
    expect(restartTotals(h.fleetSims)).toEqual({ staging: 3, "prod-eu": 0, "prod-us": 0 });
    const replies = h.thread(parent.ts).replies.map(textOf).join("\n");
    expect(replies).toContain(`stage 2/2 (prod-eu, prod-us): fleet aborted by <@${APPROVER}>`);
    // Nothing is left to abort.
    expect((await h.command("fleet abort rollout", { user: APPROVER })).text).toContain(
      "is aborted, not running: nothing to abort",
    );
  });

  it("/connect-roll fleet abort stops the fleet and its cluster rolling now, before that cluster's next restart", async () => {
    const h = await withFleet({ soakBetweenMs: 0, approvals: "none" }, { workers: 3 });
    await h.command("fleet rollout v3.7", { user: REQUESTER });
    // Once staging's rollout runs (its thread is in the channel), as a person would see it.
    await h.waitFor(() => (restartTotals(h.fleetSims).staging ?? 0) >= 1, 30_000, "staging restarting");
    const answer = await h.command("fleet abort rollout", { user: APPROVER });
    expect(answer.text).toMatch(
      /abort requested for fleet rollout \(run fl-[0-9a-f]{8}\): no further stage will start; aborting staging \(job cr-[0-9a-f]{8}\) before their next restart/,
    );
    const ended = await untilFleet(h, "aborted", 30_000, "the fleet aborted");
    expect(ended.stages.map((s) => s.status)).toEqual(["aborted", "pending"]);
    expect(ended.stages[0]?.clusters[0]?.status).toBe("aborted");
    const totals = restartTotals(h.fleetSims);
    expect((totals["prod-eu"] ?? 0) + (totals["prod-us"] ?? 0)).toBe(0);
  });
});

describe("a fleet taken over", () => {
  it("a run whose stages changed in the config since it started is not taken over: it ends failed, saying so", async () => {
    const h = await withFleet({ soakBetweenMs: 0, approvals: "none" });
    const store = h.replicas[0]?.store;
    if (store === undefined) throw new Error("no replica");
    const pending = (name: string) => ({
      clusters: [{ name, status: "pending" as const }],
      status: "pending" as const,
    });
    await store.saveFleetRun({
      v: 1,
      id: "fl-0000aaaa",
      fleet: "rollout",
      target: "v3.7",
      requestedBy: REQUESTER,
      owner: "replica-9",
      startedAt: Date.now(),
      updatedAt: Date.now(),
      resumedFrom: null,
      status: "running",
      reason: null,
      stages: [pending("staging"), pending("prod-eu"), pending("prod-us")],
      thread: { channel: "CROLL0001", ts: "1700000000.000001" },
    });
    await h.replicas[0]?.runtime.sweep();
    const ended = await fleetRun(h);
    expect(ended).toMatchObject({ status: "failed", owner: "replica-0" });
    expect(ended?.reason).toContain("the fleet's stages changed in the config since this run started");
    expect(restartTotals(h.fleetSims)).toEqual({ staging: 0, "prod-eu": 0, "prod-us": 0 });
  });

  it("a replica shutting down leaves its fleet running: another takes it over and finishes it, every worker once", async () => {
    const { h, parent } = await rollingOnReplica0();
    await h.replicas[0]?.runtime.stop();
    // Not ended by the stop: still running in the store, for another replica.
    expect((await fleetRun(h))?.status).toBe("running");
    const done = await untilFleet(h, "succeeded", 90_000, "the fleet to succeed on replica 1");
    expect(done.owner).toBe("replica-1");
    everyWorkerOnce(h.fleetSims);
    const replies = h.thread(parent.ts).replies.map(textOf).join("\n");
    expect(replies).not.toContain("aborted");
  });

  it("a replica killed mid-stage: another takes the fleet over with every stage's state; every worker restarts once", async () => {
    // Killed once staging's rollout restarted a worker: its fleet and its cluster rollout are both orphaned.
    const { h, parent } = await rollingOnReplica0();
    await h.crash(0);
    const done = await untilFleet(h, "succeeded", 90_000, "the fleet to succeed on replica 1");
    expect(done.owner).toBe("replica-1");
    everyWorkerOnce(h.fleetSims);
    const replies = await untilReplies(h, parent.ts, "succeeded: 2 stages");
    expect(replies).toMatch(/run fl-[0-9a-f]{8} taken over \(its process is gone\): going on from stage 1/);
    expect(replies).toContain("succeeded: 2 stages, every cluster on v3.7");
    // The fleet's own lines did not start staging again: one thread per cluster in the channel.
    expect(h.parents().filter((m) => m.ts !== parent.ts && textOf(m).includes("staging"))).toHaveLength(1);
  });
});
