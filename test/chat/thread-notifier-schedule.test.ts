import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { type SlackFailure, type SlackWebApi, slackApiError } from "../../src/chat/slack-web-api.js";
import { createThreadNotifier } from "../../src/chat/thread-notifier.js";
import { createManualClock, type ManualClock } from "../support/manual-clock.js";

/** An in-memory SlackWebApi that records call times and fails as scripted. */
function createScriptedApi(clock: ManualClock) {
  const calls: Array<{ method: string; at: number; text?: string }> = [];
  const failures: SlackFailure[] = [];
  let next = 0;
  const attempt = (method: string, text?: string) => {
    calls.push({ method, at: clock.now(), ...(text === undefined ? {} : { text }) });
    const failure = failures.shift();
    if (failure !== undefined) throw slackApiError(method, failure);
  };
  const api: SlackWebApi = {
    async postMessage(args) {
      attempt("chat.postMessage", args.text);
      next += 1;
      return { channel: args.channel, ts: `1700000000.${String(next).padStart(6, "0")}` };
    },
    async update(args) {
      attempt("chat.update", args.text);
    },
    async postEphemeral(args) {
      attempt("chat.postEphemeral", args.text);
    },
    async usergroupsUsersList() {
      return [];
    },
    async publishHome() {},
    async uploadFile() {
      attempt("files.upload");
      return { fileId: "F1" };
    },
  };
  return { api, calls, failures };
}

function setup() {
  const clock = createManualClock(0);
  const scripted = createScriptedApi(clock);
  const notifier = createThreadNotifier({ api: scripted.api, clock, logger: pino({ level: "silent" }) });
  return { clock, notifier, ...scripted };
}

describe("thread notifier scheduling (virtual time, default settings)", () => {
  it("spaces posts of a channel by one second, other channels independently", async () => {
    const { clock, notifier, calls } = setup();
    for (const i of [1, 2, 3]) notifier.post("C1", { text: `a${i}` }, { key: `a${i}` });
    notifier.post("C2", { text: "b1" }, { key: "b1" });
    await clock.advance(5000);
    expect(calls.map((c) => [c.text, c.at])).toEqual([
      ["a1", 0],
      ["b1", 0],
      ["a2", 1000],
      ["a3", 2000],
    ]);
    await notifier.close();
  });

  it("sends the first update at once and coalesces the rest into one call 3 s later", async () => {
    const { clock, notifier, calls } = setup();
    notifier.post("C1", { text: "v0" }, { key: "p" });
    await clock.advance(0);
    notifier.update("C1", "p", { text: "v1" });
    await clock.advance(0);
    for (let i = 2; i <= 10; i += 1) notifier.update("C1", "p", { text: `v${i}` });
    await clock.advance(10_000);
    expect(calls.filter((c) => c.method === "chat.update").map((c) => [c.text, c.at])).toEqual([
      ["v1", 0],
      ["v10", 3000],
    ]);
    await notifier.close();
  });

  it("pauses for Retry-After and backs off exponentially on transient failures", async () => {
    const { clock, notifier, calls, failures } = setup();
    failures.push(
      { kind: "rate-limited", retryAfterMs: 5000 },
      { kind: "transient", detail: "HTTP 500" },
      { kind: "transient", detail: "HTTP 500" },
      { kind: "transient", detail: "HTTP 500" },
    );
    const handle = notifier.post("C1", { text: "x" }, { key: "x" });
    await clock.advance(20_000);
    expect(calls.map((c) => c.at)).toEqual([0, 5000, 5500, 6500, 8500]);
    await expect(handle.ts).resolves.toBe("1700000000.000001");
    await notifier.close();
  });

  it("flush sends a pending update without waiting for the interval", async () => {
    const { clock, notifier, calls } = setup();
    notifier.post("C1", { text: "v0" }, { key: "p" });
    notifier.update("C1", "p", { text: "v1" });
    await clock.advance(0);
    notifier.update("C1", "p", { text: "v2" });
    const flushed = notifier.flush(60_000);
    await clock.advance(0);
    expect(await flushed).toEqual({ kind: "flushed" });
    expect(calls.map((c) => [c.method, c.text, c.at])).toEqual([
      ["chat.postMessage", "v0", 0],
      ["chat.update", "v1", 0],
      ["chat.update", "v2", 0],
    ]);
    await notifier.close();
  });
});
