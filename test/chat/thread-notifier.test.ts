import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Notifier } from "../../src/chat/notifier.js";
import type { SlackWebApi } from "../../src/chat/slack-web-api.js";
import { createThreadNotifier, type ThreadNotifierOptions } from "../../src/chat/thread-notifier.js";
import { createWebClientSlackWebApi } from "../../src/chat/web-client-slack-web-api.js";
import { isAppError } from "../../src/core/errors.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { createDrivenClock, type DrivenClock } from "./support/driven-clock.js";

const logger = pino({ level: "silent" });
const token = "xoxb-test-token";
let fake: FakeSlackWebApi;
let notifier: Notifier;
/** Virtual time: the notifier's spacing and backoff cost nothing; real HTTP to the fake stops the clock. */
let clock: DrivenClock;
/** Each Web API call with the clock's time when it was made. */
let sent: { method: string; at: number; text?: string }[];

/** The real Web API client, its calls tracked by the clock and timed in its time. */
function trackedApi(api: SlackWebApi): SlackWebApi {
  const timed = <T>(method: string, text: string | undefined, call: () => Promise<T>) => {
    sent.push({ method, at: clock.now(), ...(text === undefined ? {} : { text }) });
    return clock.track(call());
  };
  return {
    postMessage: (args) => timed("chat.postMessage", args.text, () => api.postMessage(args)),
    update: (args) => timed("chat.update", args.text, () => api.update(args)),
    postEphemeral: (args) => timed("chat.postEphemeral", args.text, () => api.postEphemeral(args)),
    usergroupsUsersList: (groupId) =>
      timed("usergroups.users.list", undefined, () => api.usergroupsUsersList(groupId)),
    publishHome: (userId, view) => timed("views.publish", undefined, () => api.publishHome(userId, view)),
    uploadFile: (args) => timed("files.upload", undefined, () => api.uploadFile(args)),
  };
}

function makeNotifier(overrides: Partial<ThreadNotifierOptions> = {}): Notifier {
  const api = createWebClientSlackWebApi({ token, slackApiUrl: fake.apiUrl, timeoutMs: 2000, logger });
  return createThreadNotifier({
    api: trackedApi(api),
    clock,
    logger,
    postIntervalMs: 20,
    minUpdateIntervalMs: 150,
    updateSpacingMs: 10,
    baseBackoffMs: 20,
    maxBackoffMs: 100,
    ...overrides,
  });
}

/** Runs `fn` (synchronous: the notifier's calls return a handle, never a promise) and checks that no Web API call
 * completed meanwhile: the caller never waits for Slack. Not timed: a loaded machine must not fail it. */
function returnsAtOnce(fn: () => unknown): void {
  const before = fake.calls().length;
  const result = fn();
  expect(result instanceof Promise).toBe(false);
  expect(fake.calls().length).toBe(before);
}

beforeEach(async () => {
  clock = createDrivenClock(1_000_000);
  sent = [];
  fake = await startFakeSlackWebApi({ botToken: token });
  notifier = makeNotifier();
});

afterEach(async () => {
  await notifier.close();
  await fake.close();
});

describe("thread notifier over the fake Web API", () => {
  it("forgets a finished job's messages once they are sent: later updates to them are ignored", async () => {
    notifier.post("C1", { text: "parent" }, { key: "job9:parent" });
    notifier.post("C1", { text: "other" }, { key: "job8:parent" });
    expect(await clock.run(notifier.flush(5000))).toEqual({ kind: "flushed" });
    notifier.forget("job9:");
    notifier.update("C1", "job9:parent", { text: "parent, edited" });
    notifier.update("C1", "job8:parent", { text: "other, edited" });
    expect(await clock.run(notifier.flush(5000))).toEqual({ kind: "flushed" });
    expect(fake.calls("chat.update").map((c) => c.params.text)).toEqual(["other, edited"]);
  });

  it("forgetting a job whose flush timed out keeps its parent while replies to it are still queued", async () => {
    notifier.post("C1", { text: "parent" }, { key: "job7:parent" });
    expect(await clock.run(notifier.flush(5000))).toEqual({ kind: "flushed" });
    // A burst of 429s holds the channel longer than the flush waits (a backlog after Slack was down).
    fake.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 10, times: 2 });
    notifier.post("C1", { text: "step 4" }, { key: "job7:step:4", threadKey: "job7:parent" });
    notifier.post("C1", { text: "final report" }, { key: "job7:report", threadKey: "job7:parent" });
    expect((await clock.run(notifier.flush(1000))).kind).not.toBe("flushed");
    notifier.forget("job7:");
    expect(await clock.run(notifier.flush(60_000))).toEqual({ kind: "flushed" });
    const parentTs = fake.store.channelMessages("C1")[0]?.ts ?? "";
    expect(fake.store.thread("C1", parentTs)?.replies.map((m) => m.text)).toEqual(["step 4", "final report"]);
  });

  it("posts in order per channel and threads replies under their parent", async () => {
    const parent = notifier.post("C1", { text: "rollout of prod" }, { key: "job1:parent" });
    for (let i = 1; i <= 5; i += 1)
      notifier.post("C1", { text: `step ${i}` }, { key: `job1:step:${i}`, threadKey: "job1:parent" });
    notifier.post("C2", { text: "other channel" }, { key: "job2:parent" });
    expect(await clock.run(notifier.flush(5000))).toEqual({ kind: "flushed" });

    const parentTs = await parent.ts;
    const thread = fake.store.thread("C1", parentTs);
    expect(thread?.parent.text).toBe("rollout of prod");
    expect(thread?.replies.map((m) => m.text)).toEqual(["step 1", "step 2", "step 3", "step 4", "step 5"]);
    expect(fake.store.channelMessages("C2").map((m) => m.text)).toEqual(["other channel"]);
    const tss = fake.calls("chat.postMessage").map((c) => c.params.channel);
    expect(tss).toHaveLength(7);
  });

  it("sends text with blocks and accepts a known thread ts", async () => {
    const blocks = [{ type: "section", text: { type: "mrkdwn", text: "*hello*" } }] as const;
    const parent = notifier.post("C1", { text: "hello", blocks: [...blocks] }, { key: "p" });
    const parentTs = await clock.run(parent.ts);
    notifier.post("C1", { text: "reply" }, { key: "r", threadTs: parentTs });
    await clock.run(notifier.flush(2000));
    expect(fake.store.message("C1", parentTs)?.blocks).toEqual(blocks);
    expect(fake.store.thread("C1", parentTs)?.replies.map((m) => m.text)).toEqual(["reply"]);
  });

  it("coalesces 10 rapid updates into at most 2 calls, the last content winning", async () => {
    const handle = notifier.post("C1", { text: "progress 0/10" }, { key: "parent" });
    const ts = await clock.run(handle.ts);
    for (let i = 1; i <= 10; i += 1) notifier.update("C1", "parent", { text: `progress ${i}/10` });
    // More than two update intervals pass before the flush.
    await clock.advance(400);
    expect(await clock.run(notifier.flush(2000))).toEqual({ kind: "flushed" });
    const updates = fake.calls("chat.update");
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.length).toBeLessThanOrEqual(2);
    expect(fake.store.message("C1", ts)?.text).toBe("progress 10/10");

    notifier.update("C1", "parent", { text: "progress 10/10" });
    await clock.run(notifier.flush(2000));
    expect(fake.calls("chat.update")).toHaveLength(updates.length);
  });

  it("spaces updates of one message by minUpdateIntervalMs", async () => {
    const handle = notifier.post("C1", { text: "v0" }, { key: "parent" });
    await clock.run(handle.ts);
    notifier.update("C1", "parent", { text: "v1" });
    await clock.advance(40);
    notifier.update("C1", "parent", { text: "v2" });
    await clock.advance(400);
    const [first, second] = fake.calls("chat.update");
    expect(first?.params.text).toBe("v1");
    expect(second?.params.text).toBe("v2");
    // Exactly minUpdateIntervalMs (150) of the notifier's clock between the two calls.
    const [firstAt, secondAt] = sent.filter((c) => c.method === "chat.update").map((c) => c.at);
    expect((secondAt ?? 0) - (firstAt ?? 0)).toBe(150);
  });

  it("holds an update until its post has completed", async () => {
    fake.failNext("chat.postMessage", { delayMs: 150 });
    const handle = notifier.post("C1", { text: "first" }, { key: "parent" });
    notifier.update("C1", "parent", { text: "second" });
    expect(await clock.run(notifier.flush(3000))).toEqual({ kind: "flushed" });
    const ts = await handle.ts;
    expect(fake.store.message("C1", ts)?.text).toBe("second");
    expect(fake.calls().map((c) => c.method)).toEqual(["chat.postMessage", "chat.update"]);
  });

  it("pauses the channel on 429 Retry-After: 1, loses nothing and never blocks the caller", async () => {
    fake.failNext("chat.postMessage", { status: 429, retryAfterSeconds: 1 });
    const start = clock.now();
    const handles = [1, 2, 3].map((i) => {
      let handle: ReturnType<Notifier["post"]> | undefined;
      returnsAtOnce(() => {
        handle = notifier.post("C1", { text: `message ${i}` }, { key: `m${i}` });
      });
      return handle;
    });
    expect(await clock.run(notifier.flush(5000))).toEqual({ kind: "flushed" });
    const calls = fake.calls("chat.postMessage");
    expect(calls.map((c) => c.status)).toEqual([429, 200, 200, 200]);
    // The retry waits Retry-After (1 s) of the notifier's clock.
    const postedAt = sent.filter((c) => c.method === "chat.postMessage").map((c) => c.at);
    expect((postedAt[1] ?? 0) - start).toBe(1000);
    expect(fake.store.channelMessages("C1").map((m) => m.text)).toEqual([
      "message 1",
      "message 2",
      "message 3",
    ]);
    for (const handle of handles) await expect(handle?.ts).resolves.toMatch(/^\d+\.\d{6}$/);
  });

  it("holds every channel's updates on a 429 of chat.update, but not their posts", async () => {
    const parents = ["C1", "C2"].map((c) => notifier.post(c, { text: `${c} v0` }, { key: `parent-${c}` }));
    await clock.run(Promise.all(parents.map((p) => p.ts)));
    fake.failNext("chat.update", { status: 429, retryAfterSeconds: 1 });
    const start = clock.now();
    notifier.update("C1", "parent-C1", { text: "C1 v1" });
    notifier.update("C2", "parent-C2", { text: "C2 v1" });
    notifier.post("C2", { text: "reply" }, { key: "reply-C2", threadKey: "parent-C2" });
    await clock.advance(2_000);
    expect(fake.calls("chat.update").map((c) => c.status)).toEqual([429, 200, 200]);
    const updatedAt = sent.filter((c) => c.method === "chat.update").map((c) => c.at - start);
    // C2's update, spaced after C1's, found the pause; both waited out the one Retry-After; the reply in C2 did not.
    expect(updatedAt[0]).toBe(0);
    expect(updatedAt.slice(1).every((at) => at >= 1000)).toBe(true);
    const replyAt = sent.find((c) => c.text === "reply")?.at ?? Number.POSITIVE_INFINITY;
    expect(replyAt - start).toBeLessThan(1000);
    expect(fake.store.channelMessages("C1").map((m) => m.text)).toEqual(["C1 v1"]);
    expect(fake.store.channelMessages("C2").map((m) => m.text)).toEqual(["C2 v1"]);
  });

  it("spaces chat.update calls of different channels by updateSpacingMs", async () => {
    await notifier.close();
    notifier = makeNotifier({ updateSpacingMs: 100 });
    const parents = ["C1", "C2", "C3"].map((c) => notifier.post(c, { text: `${c} v0` }, { key: `p-${c}` }));
    await clock.run(Promise.all(parents.map((p) => p.ts)));
    for (const c of ["C1", "C2", "C3"]) notifier.update(c, `p-${c}`, { text: `${c} v1` });
    await clock.advance(500);
    const at = sent.filter((c) => c.method === "chat.update").map((c) => c.at);
    expect(at).toHaveLength(3);
    expect([(at[1] ?? 0) - (at[0] ?? 0), (at[2] ?? 0) - (at[1] ?? 0)]).toEqual([100, 100]);
  });

  it("delivers everything once a Slack outage (500s) is over", async () => {
    fake.failNext("*", { status: 500, times: 6 });
    const parent = notifier.post("C1", { text: "parent" }, { key: "p" });
    notifier.post("C1", { text: "reply" }, { key: "r", threadKey: "p" });
    notifier.update("C1", "p", { text: "parent (updated)" });
    expect(await clock.run(notifier.flush(5000))).toEqual({ kind: "flushed" });
    const ts = await parent.ts;
    expect(fake.calls().filter((c) => c.status === 500)).toHaveLength(6);
    expect(fake.store.message("C1", ts)?.text).toBe("parent (updated)");
    expect(fake.store.thread("C1", ts)?.replies.map((m) => m.text)).toEqual(["reply"]);
  });

  it("never blocks on a slow Slack", async () => {
    fake.failNext("chat.postMessage", { delayMs: 300 });
    returnsAtOnce(() => notifier.post("C1", { text: "slow" }, { key: "slow" }));
    returnsAtOnce(() => notifier.update("C1", "slow", { text: "slow 2" }));
    expect(await clock.run(notifier.flush(3000))).toEqual({ kind: "flushed" });
  });

  it("drops an ephemeral message after bounded retries, but delivers healthy ones", async () => {
    notifier.postEphemeral("C1", "U1", { text: "only you" });
    await clock.run(notifier.flush(2000));
    expect(fake.store.ephemerals("C1", "U1").map((e) => e.text)).toEqual(["only you"]);

    fake.failNext("chat.postEphemeral", { status: 500, times: 100 });
    const bounded = makeNotifier({ maxEphemeralAttempts: 3 });
    bounded.postEphemeral("C1", "U2", { text: "lost" });
    expect(await clock.run(bounded.flush(3000))).toEqual({ kind: "flushed" });
    expect(fake.calls("chat.postEphemeral").filter((c) => c.status === 500)).toHaveLength(3);
    expect(fake.store.ephemerals("C1", "U2")).toEqual([]);
    await bounded.close();
  });

  it("rejects the handle of a message Slack refuses for good, and its replies, but goes on", async () => {
    fake.failNext("chat.postMessage", { error: "not_in_channel" });
    const refused = notifier.post("C1", { text: "refused" }, { key: "a" });
    const orphan = notifier.post("C1", { text: "orphan" }, { key: "b", threadKey: "a" });
    const fine = notifier.post("C1", { text: "fine" }, { key: "c" });
    await expect(clock.run(refused.ts)).rejects.toSatisfy(
      (e) => isAppError(e, "slack/api") && /not_in_channel/.test(e.message),
    );
    await expect(clock.run(orphan.ts)).rejects.toSatisfy((e) => isAppError(e, "slack/api"));
    await expect(clock.run(fine.ts)).resolves.toBeTypeOf("string");
    expect(fake.store.channelMessages("C1").map((m) => m.text)).toEqual(["fine"]);
  });

  it("is idempotent per key and ignores updates of unknown keys", async () => {
    const a = notifier.post("C1", { text: "once" }, { key: "k" });
    const b = notifier.post("C1", { text: "twice" }, { key: "k" });
    expect(b).toBe(a);
    notifier.update("C1", "unknown", { text: "nothing" });
    await clock.run(notifier.flush(2000));
    expect(fake.calls().map((c) => c.method)).toEqual(["chat.postMessage"]);
  });

  it("reports a timed-out flush and rejects undelivered handles on close", async () => {
    fake.failNext("chat.postMessage", { status: 500, times: 1000 });
    const handle = notifier.post("C1", { text: "never" }, { key: "never" });
    expect(await clock.run(notifier.flush(150))).toEqual({ kind: "timed-out", pending: 1 });
    await notifier.close();
    await expect(handle.ts).rejects.toSatisfy((e) => isAppError(e, "slack/api"));
    const late = notifier.post("C1", { text: "late" }, { key: "late" });
    await expect(late.ts).rejects.toSatisfy((e) => isAppError(e, "slack/api"));
  });
});
