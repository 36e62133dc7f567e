import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Notifier, PostHandle, PostOptions } from "../../src/chat/notifier.js";
import type { SlackMessage } from "../../src/chat/slack-web-api.js";
import { createThreadReporter, threadKeys } from "../../src/chat/thread-reporter.js";
import { AppError, ErrorCode } from "../../src/core/errors.js";
import { aRollout } from "./views/rollout-state-builder.js";

interface Posted {
  readonly message: SlackMessage;
  readonly options: PostOptions;
}

/** A notifier that records posts and refuses the ones whose key `refuse` names (as Slack refusing a reply would). */
function recordingNotifier(posts: Posted[], refuse: (key: string) => boolean): Notifier {
  const handle = (key: string, channel: string, ts: Promise<string>): PostHandle => {
    ts.catch(() => undefined);
    return { key, channel, ts };
  };
  return {
    post: (channel, message, options) => {
      posts.push({ message, options });
      const ts = refuse(options.key)
        ? Promise.reject(new AppError(ErrorCode.SlackApi, "refused"))
        : Promise.resolve(`${posts.length}.0`);
      return handle(options.key, channel, ts);
    },
    adopt: (channel, key, ts) => handle(key, channel, Promise.resolve(ts)),
    handleOf: () => null,
    update: () => {},
    postEphemeral: () => {},
    forget: () => {},
    flush: async () => ({ kind: "flushed" }),
    close: async () => {},
  };
}

function reporterOver(notifier: Notifier) {
  return createThreadReporter({
    notifier,
    jobId: "job-1",
    channel: "C1",
    parentTs: "100.0",
    now: () => 0,
    replicaId: "bot-a",
    logger: pino({ level: "silent" }),
  });
}

const finished = () =>
  aRollout({ cluster: "prod", to: "3.7.1" })
    .settled(1)
    .finished("succeeded", { kind: "all-settled" })
    .build();
const finishedEvent = {
  kind: "rollout-finished",
  result: "succeeded",
  reason: { kind: "all-settled" },
} as const;

describe("the final report", () => {
  it("goes to the thread by the parent's ts from the job record, broadcast to the channel", async () => {
    const posts: Posted[] = [];
    reporterOver(recordingNotifier(posts, () => false))(finishedEvent, finished());
    await Promise.resolve();
    const report = posts.find((p) => p.options.key === threadKeys.report("job-1"));
    expect(report?.options).toMatchObject({ threadTs: "100.0", replyBroadcast: true });
    expect(posts.some((p) => p.options.key === threadKeys.reportInChannel("job-1"))).toBe(false);
  });

  it("that its thread refuses is posted in the channel, saying why, rather than dropped", async () => {
    const posts: Posted[] = [];
    const notifier = recordingNotifier(posts, (key) => key === threadKeys.report("job-1"));
    reporterOver(notifier)(finishedEvent, finished());
    await new Promise((resolve) => setImmediate(resolve));
    const inChannel = posts.find((p) => p.options.key === threadKeys.reportInChannel("job-1"));
    expect(inChannel?.options.threadTs).toBeUndefined();
    expect(inChannel?.options.threadKey).toBeUndefined();
    expect(inChannel?.message.text).toContain("could not take its final report");
    expect(inChannel?.message.text).toContain("succeeded");
  });

  it("notes of two runs of the same job on one replica have keys of their own", () => {
    const posts: Posted[] = [];
    const notifier = recordingNotifier(posts, () => false);
    const state = aRollout({ cluster: "prod", to: "3.7.1" }).settled(1).build();
    for (const _ of [1, 2]) reporterOver(notifier)({ kind: "rollout-taken-over", owner: "bot-a" }, state);
    const notes = posts.filter((p) => p.message.text.includes("Resumed by replica"));
    expect(new Set(notes.map((p) => p.options.key)).size).toBe(2);
  });
});
