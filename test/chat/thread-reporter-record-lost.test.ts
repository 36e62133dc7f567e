import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Notifier, PostHandle } from "../../src/chat/notifier.js";
import type { SlackMessage } from "../../src/chat/slack-web-api.js";
import { createThreadReporter } from "../../src/chat/thread-reporter.js";
import { aRollout } from "./views/rollout-state-builder.js";

/** A notifier that records what the reporter posts (delivery is the real notifier's business, tested elsewhere). */
function recordingNotifier(posts: SlackMessage[]): Notifier {
  const handle = (key: string, channel: string): PostHandle => ({ key, channel, ts: Promise.resolve("1.0") });
  return {
    post: (channel, message, options) => {
      posts.push(message);
      return handle(options.key, channel);
    },
    adopt: (channel, key) => handle(key, channel),
    handleOf: (key) => handle(key, "C1"),
    update: () => {},
    postEphemeral: () => {},
    forget: () => {},
    flush: async () => ({ kind: "flushed" }),
    close: async () => {},
  };
}

function stoppedNote(to: string, since?: number): string {
  const posts: SlackMessage[] = [];
  const report = createThreadReporter({
    notifier: recordingNotifier(posts),
    jobId: "job-1",
    channel: "C1",
    parentTs: "1.0",
    now: () => 0,
    replicaId: "bot-a",
    logger: pino({ level: "silent" }),
  });
  const built = aRollout({ cluster: "prod", to }).settled(1).build();
  const state = since === undefined ? built : { ...built, target: { ...built.target, since } };
  report({ kind: "rollout-interrupted", why: "record-lost", detail: "gone" } as never, state);
  return posts.map((p) => p.text).join("\n");
}

describe("the thread when Redis lost the rollout's record", () => {
  it("a plain restart: the slash command that restarts the rest, with --since the rollout's start", () => {
    const built = aRollout({ cluster: "prod", to: "restart" }).build();
    const text = stoppedNote("restart");
    expect(text).toContain(`/connect-roll prod restart --since ${new Date(built.startedAt).toISOString()}`);
    expect(text).toContain("workers started since then are skipped");
  });

  it("a rerun that itself had --since keeps that time", () => {
    expect(stoppedNote("restart", Date.UTC(2026, 11, 1, 9))).toContain("--since 2026-12-01T09:00:00.000Z");
  });

  it("an upgrade: start it again, the workers on the target are skipped", () => {
    expect(stoppedNote("3.7.1")).toContain(
      "Start it again: workers already on the target version are skipped.",
    );
  });
});
