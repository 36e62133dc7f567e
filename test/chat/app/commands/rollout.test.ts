import { describe, expect, it } from "vitest";
import { CHANNEL, REQUESTER, textOf, useHarness } from "../harness.js";

const startHarness = useHarness();

describe("/connect-roll <cluster> <version>", () => {
  it("acks at once, then posts the parent, one reply per worker, parent updates and the broadcast report", async () => {
    const harness = await startHarness();
    const ack = await harness.command("sim v3.7");
    expect(ack.status).toBe(200);
    // The answer itself, not the "Working on it…" the bot acks with when the answer is not ready within its reply
    // window (2 s, inside Slack's 3 s).
    expect(ack.text).not.toContain("Working on it");
    expect(ack.json()).toMatchObject({ response_type: "ephemeral" });
    expect(ack.text).toContain("Starting the rollout of sim to v3.7");

    const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
    const report = await harness.waitFor(
      () => harness.thread(parent.ts).replies.find((r) => textOf(r).includes("succeeded")),
      20_000,
      "final report",
    );
    const thread = harness.thread(parent.ts);
    const stepReplies = thread.replies.filter((r) => /^Step \d\/3/.test(r.text));
    expect(stepReplies).toHaveLength(3);
    expect(stepReplies.every((r) => r.edits > 0)).toBe(true);
    expect(thread.parent.edits).toBeGreaterThan(0);
    const posts = harness.fake.calls("chat.postMessage");
    const reportCall = posts.find(
      (c) => c.params.thread_ts === parent.ts && String(c.params.reply_broadcast) === "true",
    );
    expect(reportCall).toBeDefined();
    expect(report.threadTs).toBe(parent.ts);
    await harness.waitFor(
      () => textOf(harness.thread(parent.ts).parent).includes("succeeded") || undefined,
      5000,
      "parent shows the result",
    );
    expect(harness.parents()).toHaveLength(1);
    expect(harness.sim.cluster.state().workers.every((w) => w.version.startsWith("3.7"))).toBe(true);
    expect(harness.fake.calls("chat.postMessage")[0]?.params.channel).toBe(CHANNEL);
    // Attributed to whoever ran the command (the harness's default user), in the parent and the report.
    expect(textOf(harness.thread(parent.ts).parent)).toContain(`Requested by <@${REQUESTER}>`);
    expect(textOf(report)).toContain(`requested by <@${REQUESTER}>`);
  });
});
