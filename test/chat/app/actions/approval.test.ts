import { describe, expect, it } from "vitest";
import { ActionId } from "../../../../src/chat/action-ids.js";
import { APPROVER, CHANNEL, GROUP_APPROVER, STRANGER, textOf, useHarness } from "../harness.js";
import { approveAndWait, finalReport, startAtApprovalPrompt, totalRestarts } from "../rollout-steps.js";

const startHarness = useHarness();

describe("approval buttons", () => {
  it("a 2.2 → 3.7 rollout (eager until the last 2.2 worker leaves) stops at an approval prompt; Approve continues it to success", async () => {
    const harness = await startHarness({ version: "2.2.2" });
    const { parent, approve } = await startAtApprovalPrompt(harness);
    expect(totalRestarts(harness)).toBe(0);
    const prompt = harness.thread(parent.ts).replies.find((r) => r.ts === approve.ts);
    expect(textOf(prompt)).toContain("Approval needed");
    expect(textOf(prompt)).toContain(ActionId.Abort);
    expect(textOf(prompt)).toContain("confirm");

    const click = await approveAndWait(harness, { parent, approve });
    expect(click.status).toBe(200);
    expect(textOf(harness.fake.store.message(CHANNEL, approve.ts))).not.toContain(ActionId.Approve);
    await finalReport(harness, parent.ts, "succeeded");
    expect(totalRestarts(harness)).toBe(3);
  });

  it("Abort stops the rollout before the next restart", async () => {
    const harness = await startHarness({ version: "2.3.0", eager: true });
    const { parent, approve, abort } = await startAtApprovalPrompt(harness);
    expect(abort).toBeDefined();
    await harness.click({
      actionId: ActionId.Abort,
      value: abort?.value ?? "",
      messageTs: approve.ts,
      threadTs: parent.ts,
      user: APPROVER,
    });
    await finalReport(harness, parent.ts, "aborted");
    expect(totalRestarts(harness)).toBe(0);
    expect(textOf(harness.fake.store.message(CHANNEL, approve.ts))).toContain(`Aborted by <@${APPROVER}>`);
  });

  it("an approver not on the list, and the requester under four-eyes, are refused and nothing changes; a group member may approve", async () => {
    const harness = await startHarness({ version: "2.3.0", eager: true });
    const { parent, approve } = await startAtApprovalPrompt(harness, APPROVER);
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
    expect(totalRestarts(harness)).toBe(0);
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
    const harness = await startHarness({ version: "2.3.0", eager: true, replicas: 2 });
    const { parent, approve } = await startAtApprovalPrompt(harness);
    expect(harness.replicas[0]?.runtime.service.running()).toHaveLength(1);
    expect(harness.replicas[1]?.runtime.service.running()).toHaveLength(0);
    await approveAndWait(harness, { parent, approve }, { replica: 1 });
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
    const harness = await startHarness({ version: "2.3.0", eager: true });
    const { parent } = await startAtApprovalPrompt(harness);
    const ack = await harness.command("abort sim", { user: APPROVER });
    expect(ack.text).toContain("Abort requested");
    await finalReport(harness, parent.ts, "aborted");
    expect(totalRestarts(harness)).toBe(0);
  });
});
