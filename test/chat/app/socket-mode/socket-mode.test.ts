import { describe, expect, it } from "vitest";
import { ActionId } from "../../../../src/chat/action-ids.js";
import { APPROVER, CHANNEL, GROUP_APPROVER, type Harness, textOf, useHarness } from "../harness.js";
import { approveAndWait, finalReport, restartCounts, startAtApprovalPrompt } from "../rollout-steps.js";

const startHarness = useHarness();

/** A 2.2 → 3.7 rollout (eager until the last 2.2 worker leaves) started through Socket Mode, at its first prompt. */
async function startAtPrompt(harness: Harness) {
  const started = await startAtApprovalPrompt(harness);
  expect(started.ack.json().text).toContain("Starting the rollout of sim to v3.7");
  return started;
}

/** Every message posted in the channel has distinct text per thread position: nothing was posted twice. */
function postsOnce(harness: Harness): void {
  const posts = harness.fake.calls("chat.postMessage").filter((c) => c.ok);
  const keys = posts.map((c) => `${String(c.params.thread_ts ?? "")}|${String(c.params.text)}`);
  expect(new Set(keys).size).toBe(keys.length);
}

describe("Socket Mode, end to end (Bolt's own client against the fake's WebSocket server)", () => {
  it("connects with the app-level token, runs a rollout with an approval through envelopes, and serves health on its own port", async () => {
    const harness = await startHarness({ version: "2.2.2", transport: "socket" });
    expect(harness.fake.socketMode.connections()).toBe(1);
    const opens = harness.fake.calls("apps.connections.open");
    expect(opens).toHaveLength(1);
    expect(opens[0]?.ok).toBe(true);
    expect((await harness.get("/healthz")).status).toBe(200);
    expect((await harness.get("/readyz")).json()).toEqual({ ok: true });

    const { parent, approve } = await startAtPrompt(harness);
    expect(Object.values(restartCounts(harness)).reduce((a, b) => a + b, 0)).toBe(0);
    await approveAndWait(harness, { parent, approve });
    await finalReport(harness, parent.ts, "succeeded");
    expect(Object.values(restartCounts(harness))).toEqual([1, 1, 1]);

    // One envelope per command and click, each acked once and in time; the command's answer rode on its ack.
    const envelopes = harness.fake.socketMode.envelopes();
    expect(envelopes.map((e) => e.type)).toEqual(["slash_commands", "interactive"]);
    expect(envelopes.every((e) => e.acks === 1 && e.deliveries === 1 && !e.late)).toBe(true);
    expect(envelopes[0]?.ackPayload?.response_type).toBe("ephemeral");
    postsOnce(harness);
  });

  it("an answer slower than the ack deadline: the ack says 'working on it' in time and the answer follows as an ephemeral", async () => {
    const harness = await startHarness({ version: "2.2.2", transport: "socket", replyWithinMs: 300 });
    const { parent } = await startAtPrompt(harness);
    // GROUP_APPROVER may abort only as an approver: the bot looks the user group up, and Slack is slow to answer.
    harness.fake.failNext("usergroups.users.list", { delayMs: 1500 });
    const ack = await harness.command("abort sim", { user: GROUP_APPROVER });
    expect(ack.json().text).toBe("Working on it…");
    const answer = await harness.waitFor(
      () =>
        harness.fake.store
          .ephemerals(CHANNEL, GROUP_APPROVER)
          .find((e) => textOf(e).includes("Abort requested")),
      10_000,
      "the answer as an ephemeral",
    );
    expect(textOf(answer)).toContain("sim");
    await finalReport(harness, parent.ts, "aborted");
    expect(Object.values(restartCounts(harness)).every((n) => n === 0)).toBe(true);
    const abort = harness.fake.socketMode.envelopes()[1];
    expect(abort?.late).toBe(false);
    expect(abort?.acks).toBe(1);
  });

  it("an ack Slack never saw: the click is delivered again after the reconnect and counted once", async () => {
    const harness = await startHarness({ version: "2.2.2", transport: "socket" });
    const { parent, approve } = await startAtPrompt(harness);
    harness.fake.socketMode.loseNextAcks(1);
    const clicked = harness.click({
      actionId: ActionId.Approve,
      value: approve.value,
      messageTs: approve.ts,
      threadTs: parent.ts,
      user: APPROVER,
    });
    await harness.waitFor(
      () => textOf(harness.fake.store.message(CHANNEL, approve.ts)).includes(`Approved by <@${APPROVER}>`),
      10_000,
      "prompt updated",
    );
    harness.fake.socketMode.requestRefresh();
    await clicked;
    const click = harness.fake.socketMode.envelopes()[1];
    expect(click?.deliveries).toBe(2);
    expect(click?.acks).toBe(1);
    await finalReport(harness, parent.ts, "succeeded");
    expect(harness.fake.socketMode.connectionsOpened()).toBe(2);
    // The second delivery changed nothing: no "already decided" answer, one approval in the audit.
    expect(harness.fake.store.ephemerals(CHANNEL, APPROVER)).toHaveLength(0);
    const audit = await harness.replicas[0]?.store.readAudit(await jobIdOf(harness));
    expect(audit?.filter((a) => a.action === "approved")).toHaveLength(1);
    expect(Object.values(restartCounts(harness))).toEqual([1, 1, 1]);
    postsOnce(harness);
  });

  it("Slack refreshes the connection mid-rollout: a click sent while the bot reconnects is delivered on the new connection; nothing lost, nothing doubled", async () => {
    const harness = await startHarness({ version: "2.2.2", transport: "socket" });
    const { parent, approve } = await startAtPrompt(harness);
    harness.fake.socketMode.requestRefresh();
    await harness.waitFor(() => harness.fake.socketMode.connections() === 0, 5000, "old connection closed");
    const clicked = harness.click({
      actionId: ActionId.Approve,
      value: approve.value,
      messageTs: approve.ts,
      threadTs: parent.ts,
      user: APPROVER,
    });
    await clicked;
    expect(harness.fake.socketMode.connectionsOpened()).toBe(2);
    expect(harness.fake.calls("apps.connections.open")).toHaveLength(2);

    // Then the network drops while workers restart: a status asked meanwhile is answered once the bot is back.
    const jobId = await jobIdOf(harness);
    await harness.waitFor(
      async () => (await harness.replicas[0]?.store.loadJob(jobId))?.status === "running",
      10_000,
      "running again",
    );
    harness.fake.socketMode.dropConnections();
    const during = await harness.command("status sim");
    expect(during.json().text).toMatch(/active connect-roll rollouts?|No rollout/);
    expect(harness.fake.socketMode.connectionsOpened()).toBe(3);

    await finalReport(harness, parent.ts, "succeeded");
    const envelopes = harness.fake.socketMode.envelopes();
    expect(envelopes.map((e) => [e.type, e.deliveries, e.acks])).toEqual([
      ["slash_commands", 1, 1],
      ["interactive", 1, 1],
      ["slash_commands", 1, 1],
    ]);
    expect(Object.values(restartCounts(harness))).toEqual([1, 1, 1]);
    expect(harness.parents()).toHaveLength(1);
    postsOnce(harness);
    // A command after the reconnect is answered on the new connection.
    const status = await harness.command("status");
    expect(textOf({ text: status.text })).toContain("0 rollouts in progress");
  });
});

async function jobIdOf(harness: Harness): Promise<string> {
  const jobs = await harness.replicas[0]?.store.listJobs({ cluster: "sim" });
  return jobs?.[0]?.id ?? "";
}
