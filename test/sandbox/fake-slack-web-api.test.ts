import { WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import type { StoreChange } from "../../src/sandbox/web-api-store.js";

const token = "xoxb-sandbox";
let fake: FakeSlackWebApi;
let client: WebClient;

beforeEach(async () => {
  fake = await startFakeSlackWebApi({ botToken: token, botUserId: "UBOT" });
  client = new WebClient(token, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 2000,
  });
});

afterEach(async () => {
  await fake.close();
});

async function rawCall(method: string, init: { body: string; type: string; auth?: string }) {
  const response = await fetch(`${fake.apiUrl}${method}`, {
    method: "POST",
    headers: { "content-type": init.type, ...(init.auth === undefined ? {} : { authorization: init.auth }) },
    body: init.body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("fake Slack Web API", () => {
  it("answers auth.test like Slack", async () => {
    const result = await client.auth.test();
    expect(result).toMatchObject({ ok: true, user_id: "UBOT", team_id: "T0SANDBOX", bot_id: "BBOT0001" });
  });

  it("posts, threads and updates messages with Slack's shapes and increasing ts", async () => {
    const parent = await client.chat.postMessage({
      channel: "C1",
      text: "parent",
      blocks: [{ type: "divider" }],
    });
    expect(parent).toMatchObject({ ok: true, channel: "C1", message: { text: "parent", user: "UBOT" } });
    expect(parent.ts).toBe("1700000000.000100");
    const reply = await client.chat.postMessage({ channel: "C1", text: "reply", thread_ts: parent.ts ?? "" });
    expect(reply.ts).toBe("1700000000.000200");
    expect(reply.message?.thread_ts).toBe(parent.ts);
    const updated = await client.chat.update({ channel: "C1", ts: parent.ts ?? "", text: "parent v2" });
    expect(updated).toMatchObject({ ok: true, channel: "C1", ts: parent.ts, text: "parent v2" });

    const thread = fake.store.thread("C1", parent.ts ?? "");
    expect(thread?.parent).toMatchObject({ text: "parent v2", edits: 1 });
    // As in Slack, an update with text but no blocks removes the blocks.
    expect(thread?.parent.blocks).toBeUndefined();
    expect(thread?.replies.map((m) => m.text)).toEqual(["reply"]);
    expect(fake.store.channelMessages("C1").map((m) => m.text)).toEqual(["parent v2"]);
  });

  it("accepts JSON bodies with a bearer token and form bodies with a token argument", async () => {
    const json = await rawCall("chat.postMessage", {
      type: "application/json; charset=utf-8",
      auth: `Bearer ${token}`,
      body: JSON.stringify({ channel: "C1", text: "json", blocks: [{ type: "divider" }] }),
    });
    expect(json.body).toMatchObject({ ok: true, channel: "C1" });
    const form = await rawCall("chat.postMessage", {
      type: "application/x-www-form-urlencoded",
      body: new URLSearchParams({
        token,
        channel: "C1",
        text: "form",
        blocks: '[{"type":"divider"}]',
      }).toString(),
    });
    expect(form.body).toMatchObject({ ok: true });
    expect(fake.store.channelMessages("C1").map((m) => [m.text, m.blocks])).toEqual([
      ["json", [{ type: "divider" }]],
      ["form", [{ type: "divider" }]],
    ]);
    expect(fake.calls("chat.postMessage").map((c) => c.params.token)).toEqual([undefined, undefined]);
  });

  it("checks the token and the arguments", async () => {
    expect((await rawCall("auth.test", { type: "application/json", body: "{}" })).body).toEqual({
      ok: false,
      error: "not_authed",
    });
    expect(
      (await rawCall("auth.test", { type: "application/json", auth: "Bearer xoxb-wrong", body: "{}" })).body,
    ).toEqual({
      ok: false,
      error: "invalid_auth",
    });
    await expect(client.chat.update({ channel: "C1", ts: "1.000000", text: "x" })).rejects.toMatchObject({
      data: { error: "message_not_found" },
    });
    await expect(client.apiCall("no.such.method")).rejects.toMatchObject({
      data: { error: "unknown_method" },
    });
  });

  it("keeps ephemerals per user and serves user groups", async () => {
    const result = await client.chat.postEphemeral({ channel: "C1", user: "U1", text: "psst" });
    expect(result.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(fake.store.ephemerals("C1", "U1").map((e) => e.text)).toEqual(["psst"]);
    expect(fake.store.ephemerals("C1", "U2")).toEqual([]);
    fake.store.setUserGroup("S1", ["U1", "U2"]);
    expect((await client.usergroups.users.list({ usergroup: "S1" })).users).toEqual(["U1", "U2"]);
    await expect(client.usergroups.users.list({ usergroup: "S9" })).rejects.toMatchObject({
      data: { error: "no_such_subteam" },
    });
  });

  it("injects 429s with Retry-After, 500s, Slack errors and slowness, and records every call", async () => {
    fake.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 7 });
    await expect(client.chat.postMessage({ channel: "C1", text: "a" })).rejects.toMatchObject({
      retryAfter: 7,
    });
    fake.failNext("*", { status: 500, times: 2 });
    await expect(client.chat.postMessage({ channel: "C1", text: "b" })).rejects.toMatchObject({
      statusCode: 500,
    });
    await expect(client.auth.test()).rejects.toMatchObject({ statusCode: 500 });
    fake.failNext("chat.postMessage", { error: "not_in_channel" });
    await expect(client.chat.postMessage({ channel: "C1", text: "c" })).rejects.toMatchObject({
      data: { error: "not_in_channel" },
    });
    fake.failNext("chat.postMessage", { delayMs: 500 });
    // Slow: three calls made one after another while it is pending are all answered before it.
    const answered: string[] = [];
    const slow = client.chat.postMessage({ channel: "C1", text: "d" }).then(() => answered.push("d"));
    for (let i = 1; i <= 3; i++) {
      await client.auth.test();
      answered.push(`auth ${i}`);
    }
    await slow;
    expect(answered).toEqual(["auth 1", "auth 2", "auth 3", "d"]);
    expect(fake.calls().map((c) => [c.method, c.status, c.error ?? null])).toEqual([
      ["chat.postMessage", 429, "ratelimited"],
      ["chat.postMessage", 500, "internal_error"],
      ["auth.test", 500, "internal_error"],
      ["chat.postMessage", 200, "not_in_channel"],
      ["auth.test", 200, null],
      ["auth.test", 200, null],
      ["auth.test", 200, null],
      ["chat.postMessage", 200, null],
    ]);
    expect(fake.store.channelMessages("C1").map((m) => m.text)).toEqual(["d"]);
  });

  it("announces changes to subscribers until they unsubscribe", async () => {
    const changes: StoreChange["kind"][] = [];
    const unsubscribe = fake.onChange((change) => changes.push(change.kind));
    const posted = await client.chat.postMessage({ channel: "C1", text: "x" });
    await client.chat.update({ channel: "C1", ts: posted.ts ?? "", text: "y" });
    await client.chat.postEphemeral({ channel: "C1", user: "U1", text: "z" });
    unsubscribe();
    await client.chat.postMessage({ channel: "C1", text: "unseen" });
    expect(changes).toEqual(["message-posted", "message-updated", "ephemeral-posted"]);
  });
});
