import { afterEach, describe, expect, it } from "vitest";
import { ActionId } from "../../../../src/chat/action-ids.js";
import {
  APPROVER,
  CHANNEL,
  findButton,
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

/** Starts an eager rollout (2.2 workers → 3.7: the group runs eager) and waits for its first approval prompt. */
async function startAtPrompt(harness: Harness, requester = REQUESTER) {
  const ack = await harness.command("sim v3.7", { user: requester });
  expect(ack.status).toBe(200);
  const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
  const approve = await harness.waitFor(
    () => findButton(harness.thread(parent.ts), ActionId.Approve),
    15_000,
    "approval prompt",
  );
  const abort = findButton(harness.thread(parent.ts), ActionId.Abort);
  return { parent, approve, abort };
}

const restarts = (harness: Harness) =>
  Object.values(harness.sim.cluster.state().counters.restarts).reduce((a, b) => a + b, 0);
const finalReport = (harness: Harness, parentTs: string, result: string) =>
  harness
    .waitFor(
      () => harness.thread(parentTs).replies.find((r) => r.text.includes(`${result} after`)),
      20_000,
      `final report (${result})`,
    )
    .catch((e: unknown) => {
      const t = harness.thread(parentTs);
      throw new Error(`${String(e)}\n${[t.parent, ...t.replies].map((m) => m.text).join("\n")}`);
    });

describe("approval buttons", () => {
  it("a 2.2 → 3.7 rollout (eager until the last 2.2 worker leaves) stops at an approval prompt; Approve continues it to success", async () => {
    h = await startHarness({ version: "2.2.2" });
    const harness = h;
    const { parent, approve } = await startAtPrompt(harness);
    expect(restarts(harness)).toBe(0);
    const prompt = harness.thread(parent.ts).replies.find((r) => r.ts === approve.ts);
    expect(textOf(prompt)).toContain("Approval needed");
    expect(textOf(prompt)).toContain(ActionId.Abort);
    expect(textOf(prompt)).toContain("confirm");

    const click = await harness.click({
      actionId: ActionId.Approve,
      value: approve.value,
      messageTs: approve.ts,
      threadTs: parent.ts,
      user: APPROVER,
    });
    expect(click.status).toBe(200);
    await harness.waitFor(
      () => textOf(harness.fake.store.message(CHANNEL, approve.ts)).includes(`Approved by <@${APPROVER}>`),
      10_000,
      "prompt updated",
    );
    expect(textOf(harness.fake.store.message(CHANNEL, approve.ts))).not.toContain(ActionId.Approve);
    await finalReport(harness, parent.ts, "succeeded");
    expect(restarts(harness)).toBe(3);
  });

  it("Abort stops the rollout before the next restart", async () => {
    h = await startHarness({ version: "2.3.0", eager: true });
    const harness = h;
    const { parent, approve, abort } = await startAtPrompt(harness);
    expect(abort).toBeDefined();
    await harness.click({
      actionId: ActionId.Abort,
      value: abort?.value ?? "",
      messageTs: approve.ts,
      threadTs: parent.ts,
      user: APPROVER,
    });
    await finalReport(harness, parent.ts, "aborted");
    expect(restarts(harness)).toBe(0);
    expect(textOf(harness.fake.store.message(CHANNEL, approve.ts))).toContain(`Aborted by <@${APPROVER}>`);
  });

  it("an approver not on the list, and the requester under four-eyes, are refused and nothing changes; a group member may approve", async () => {
    h = await startHarness({ version: "2.3.0", eager: true });
    const harness = h;
    const { parent, approve } = await startAtPrompt(harness, APPROVER);
    for (const user of [STRANGER, APPROVER]) {
      const click = await harness.click({
        actionId: ActionId.Approve,
        value: approve.value,
        messageTs: approve.ts,
        threadTs: parent.ts,
        user,
      });
      expect(click.status).toBe(200);
      await harness.waitFor(
        () => harness.fake.store.ephemerals(CHANNEL, user).length > 0,
        5000,
        `refusal to ${user}`,
      );
    }
    expect(textOf(harness.fake.store.ephemerals(CHANNEL, STRANGER)[0])).toContain(
      "not in the approvers list",
    );
    expect(textOf(harness.fake.store.ephemerals(CHANNEL, APPROVER)[0])).toContain("four-eyes");
    // Nothing changed: the job still awaits the same approval and no decision is recorded for it (the runner moves
    // on only on a recorded decision).
    const replica = harness.replicas[0];
    const jobId = replica?.runtime.service.running()[0];
    if (replica === undefined || jobId === undefined) throw new Error("no running job");
    const waiting = await replica.store.loadJob(jobId);
    expect(waiting.status).toBe("awaiting-approval");
    const approvalId = waiting.pendingApproval?.id ?? "";
    expect(approvalId).not.toBe("");
    expect(await replica.store.readDecision(jobId, approvalId)).toBeNull();
    expect(restarts(harness)).toBe(0);
    expect(textOf(harness.fake.store.message(CHANNEL, approve.ts))).toContain(ActionId.Approve);

    await harness.click({
      actionId: ActionId.Approve,
      value: approve.value,
      messageTs: approve.ts,
      threadTs: parent.ts,
      user: GROUP_APPROVER,
    });
    await finalReport(harness, parent.ts, "succeeded");
    expect(harness.fake.calls("usergroups.users.list").length).toBeGreaterThan(0);
  });

  it("an Approve click delivered to a second replica sharing Redis is honoured by the first; a duplicate click gets 'already decided'", async () => {
    h = await startHarness({ version: "2.3.0", eager: true, replicas: 2 });
    const harness = h;
    const { parent, approve } = await startAtPrompt(harness);
    expect(harness.replicas[0]?.runtime.service.running()).toHaveLength(1);
    expect(harness.replicas[1]?.runtime.service.running()).toHaveLength(0);
    await harness.click({
      actionId: ActionId.Approve,
      value: approve.value,
      messageTs: approve.ts,
      threadTs: parent.ts,
      user: APPROVER,
      replica: 1,
    });
    await harness.waitFor(
      () => textOf(harness.fake.store.message(CHANNEL, approve.ts)).includes(`Approved by <@${APPROVER}>`),
      10_000,
      "prompt updated",
    );
    await harness.click({
      actionId: ActionId.Approve,
      value: approve.value,
      messageTs: approve.ts,
      threadTs: parent.ts,
      user: GROUP_APPROVER,
      replica: 1,
    });
    await harness.waitFor(
      () =>
        textOf(harness.fake.store.ephemerals(CHANNEL, GROUP_APPROVER)[0]).includes(
          `Already decided by <@${APPROVER}>`,
        ) || undefined,
      5000,
      "already decided",
    );
    await finalReport(harness, parent.ts, "succeeded");
    expect(harness.replicas[1]?.runtime.service.running()).toHaveLength(0);
  });

  it("/connect-roll abort <cluster> while a prompt waits aborts before any restart", async () => {
    h = await startHarness({ version: "2.3.0", eager: true });
    const harness = h;
    const { parent } = await startAtPrompt(harness);
    const ack = await harness.command("abort sim", { user: APPROVER });
    expect(ack.text).toContain("Abort requested");
    await finalReport(harness, parent.ts, "aborted");
    expect(restarts(harness)).toBe(0);
  });
});
