import { request } from "undici";
import { describe, expect, it } from "vitest";
import type { StoredMessage } from "../../../../src/sandbox/web-api-store.js";
import { textOf, useHarness } from "../harness.js";
import { finalReport, waitInThread } from "../rollout-steps.js";

const startHarness = useHarness();
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const chartsIn = (replies: readonly StoredMessage[]) => replies.filter((r) => (r.files ?? []).length > 0);

async function bytesOf(url: string): Promise<Buffer> {
  const response = await request(url, { headersTimeout: 5_000, bodyTimeout: 5_000 });
  expect(response.statusCode).toBe(200);
  return Buffer.from(await response.body.arrayBuffer());
}

describe("the rollout's timeline chart in Slack", () => {
  it("follows the final report in the thread: a PNG uploaded in Slack's three steps", async () => {
    const harness = await startHarness();
    await harness.command("sim v3.7");
    const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
    const report = await finalReport(harness, parent.ts, "succeeded");
    const chart = await waitInThread(
      harness,
      parent.ts,
      () => chartsIn(harness.thread(parent.ts).replies)[0],
      10_000,
      "the chart in the thread",
    );
    expect(Number(chart.ts)).toBeGreaterThan(Number(report.ts));
    const file = chart.files?.[0];
    expect(file).toMatchObject({ mimetype: "image/png", title: "sim → v3.7: succeeded" });
    expect(file?.name).toMatch(/^connect-roll-sim-.+\.png$/);
    const png = await bytesOf(file?.url ?? "");
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.length).toBe(file?.size);

    const [asked] = harness.fake.calls("files.getUploadURLExternal");
    expect(asked?.params).toMatchObject({ filename: file?.name, length: String(png.length) });
    const [completed] = harness.fake.calls("files.completeUploadExternal");
    expect(completed?.params).toMatchObject({ channel_id: parent.channel, thread_ts: parent.ts });
    expect(chartsIn(harness.thread(parent.ts).replies)).toHaveLength(1);
  });

  it("says once in the thread that the chart could not be posted, and the rollout is none the worse", async () => {
    const harness = await startHarness();
    // Refused after a while: by then the finished job's messages are forgotten by the notifier, and the note must
    // still reach the thread.
    harness.fake.failNext("files.getUploadURLExternal", { error: "missing_scope", delayMs: 2_000 });
    await harness.command("sim v3.7");
    const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
    await finalReport(harness, parent.ts, "succeeded");
    const says = (r: StoredMessage) => r.text.includes("timeline chart could not be posted");
    const note = await waitInThread(
      harness,
      parent.ts,
      () => harness.thread(parent.ts).replies.find(says),
      10_000,
      "the chart's failure note",
    );
    expect(note.text).toContain("Slack refused it: missing_scope");
    await harness.waitFor(
      () => textOf(harness.thread(parent.ts).parent).includes("succeeded") || undefined,
      5000,
      "parent shows the result",
    );
    expect(harness.thread(parent.ts).replies.filter(says)).toHaveLength(1);
    expect(chartsIn(harness.thread(parent.ts).replies)).toHaveLength(0);
    expect(harness.fake.calls("files.getUploadURLExternal")).toHaveLength(1);
  });

  it("/connect-roll status <cluster> --chart posts the running rollout's chart in its thread", async () => {
    const harness = await startHarness({ simSpeed: 4 });
    const idle = await harness.command("status sim --chart");
    expect(idle.text).toContain("No rollout of sim is running: no chart to post.");

    await harness.command("sim v3.7");
    const parent = await harness.waitFor(() => harness.parents()[0], 5000, "parent posted");
    await waitInThread(
      harness,
      parent.ts,
      () => harness.thread(parent.ts).replies.find((r) => /^Step 1\/3/.test(r.text)),
      10_000,
      "step 1 started",
    );
    const ack = await harness.command("status sim --chart");
    expect(ack.status).toBe(200);
    const chart = await waitInThread(
      harness,
      parent.ts,
      () => chartsIn(harness.thread(parent.ts).replies)[0],
      10_000,
      "the running rollout's chart",
    );
    expect(chart.files?.[0]?.title).toMatch(/^sim → v3\.7: (running|waiting)/);
    const told = await harness.waitFor(
      () =>
        harness.responses.find((r) => String(r.text).includes("timeline chart of sim's rollout is posted")),
      10_000,
      "the caller told where the chart is",
    );
    expect(String(told.text)).toContain("in its thread");
  });
});
