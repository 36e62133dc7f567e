import { WebClient } from "@slack/web-api";
import { pino } from "pino";
import { request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { slackFailureOf } from "../../src/chat/slack-web-api.js";
import { createWebClientSlackWebApi } from "../../src/chat/web-client-slack-web-api.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";

const token = "xoxb-sandbox";
let fake: FakeSlackWebApi;

beforeEach(async () => {
  fake = await startFakeSlackWebApi({ botToken: token, botUserId: "UBOT" });
});
afterEach(async () => {
  await fake.close();
});

const api = () =>
  createWebClientSlackWebApi({
    token,
    slackApiUrl: fake.apiUrl,
    timeoutMs: 2000,
    logger: pino({ level: "silent" }),
  });

describe("the fake Web API's file upload", () => {
  it("hands out an upload URL on loopback, takes the bytes there and shares the file in the thread", async () => {
    const client = new WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    const parent = await client.chat.postMessage({ channel: "C1", text: "parent" });
    const bytes = Buffer.from("\x89PNG\r\n\x1a\n-not-really-a-picture");
    const { fileId } = await api().uploadFile({
      channel: "C1",
      threadTs: parent.ts ?? "",
      filename: "chart.png",
      title: "A chart",
      altText: "a chart",
      bytes,
    });
    const [asked] = fake.calls("files.getUploadURLExternal");
    expect(asked?.params).toMatchObject({
      filename: "chart.png",
      length: String(bytes.length),
      alt_text: "a chart",
    });
    const reply = fake.store.thread("C1", parent.ts ?? "")?.replies[0];
    expect(reply?.files).toEqual([
      {
        id: fileId,
        name: "chart.png",
        title: "A chart",
        mimetype: "image/png",
        size: bytes.length,
        altText: "a chart",
        url: `${fake.url}/files/${fileId}`,
      },
    ]);
    const served = await request(`${fake.url}/files/${fileId}`);
    expect(served.headers["content-type"]).toBe("image/png");
    expect(Buffer.from(await served.body.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("refuses bytes of another length than announced, and completing a file never uploaded", async () => {
    const asked = await fetch(`${fake.apiUrl}files.getUploadURLExternal`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Bearer ${token}` },
      body: "filename=a.png&length=10",
    });
    const { upload_url: url, file_id: id } = (await asked.json()) as { upload_url: string; file_id: string };
    expect(url.startsWith(`${fake.url}/upload/`)).toBe(true);
    const short = await fetch(url, { method: "POST", body: "abc" });
    expect(short.status).toBe(400);
    const completed = await fetch(`${fake.apiUrl}files.completeUploadExternal`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ files: [{ id }], channel_id: "C1" }),
    });
    expect(await completed.json()).toEqual({ ok: false, error: "file_not_found" });
  });

  it("a refused upload is a permanent slack/api failure with Slack's code", async () => {
    fake.failNext("files.getUploadURLExternal", { error: "missing_scope" });
    const failed = await api()
      .uploadFile({ channel: "C1", filename: "c.png", title: "t", altText: "a", bytes: Buffer.from("x") })
      .catch((e: unknown) => e);
    expect(slackFailureOf(failed)).toEqual({ kind: "permanent", error: "missing_scope" });
  });
});
