import { ActionId } from "../../src/chat/action-ids.js";
import type { FakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { buildBlockActionRequest } from "../../src/sandbox/web-api-signed-requests.js";
import type { StoredMessage } from "../../src/sandbox/web-api-store.js";
import type { RolloutThread, StepRow } from "./chaos-evidence.js";
import { CHAOS_SLACK } from "./chaos-world.js";

/** A message's text and its blocks' texts, as one string. */
export function messageText(m: StoredMessage): string {
  return `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;
}

const STEP_ROW =
  /^\s*\d+\s+(\S+)\s+(settled|continued|skipped|failed|not run|in flight|not settled)(†)?\*?\s/;

/**
 * The step table of a final report ("  1  worker-2  settled  …"); "skipped†" marks a worker found restarted after the
 * rollout's lost record was written back.
 */
export function stepRows(m: StoredMessage): StepRow[] {
  const texts: string[] = [];
  for (const b of (m.blocks ?? []) as { text?: { text?: string } }[])
    if (b.text?.text) texts.push(b.text.text);
  const rows: StepRow[] = [];
  for (const line of texts.join("\n").split("\n")) {
    const row = STEP_ROW.exec(line);
    if (row)
      rows.push({
        worker: row[1] ?? "",
        status: row[2] ?? "",
        ...(row[3] === "†" ? { afterRecordLost: true as const } : {}),
      });
  }
  return rows;
}

const RERUN = /`(\/connect-roll \S+ restart --since \S+)`/;

/** What a parent says when its command was refused after it was posted (the lock was taken meanwhile): no rollout. */
const NOT_STARTED = /: not started: /;

/**
 * Every rollout thread of the channel, from the fake Web API's record; `postedAt` maps a ts to when it was posted. A
 * parent that says its rollout did not start is a refusal, not a rollout: it owes no report.
 */
export function rolloutThreads(
  slack: FakeSlackWebApi,
  postedAt: ReadonlyMap<string, number>,
): RolloutThread[] {
  const parents = slack.store
    .channelMessages(CHAOS_SLACK.channel)
    .filter((parent) => !NOT_STARTED.test(parent.text));
  return parents.flatMap((parent) => {
    const thread = slack.store.thread(CHAOS_SLACK.channel, parent.ts);
    if (thread === undefined) return [];
    const at = (m: StoredMessage) => postedAt.get(m.ts) ?? 0;
    const reports = thread.replies
      .filter((r) => r.broadcast === true)
      .map((r) => ({
        at: at(r),
        result: /(succeeded|aborted|failed)/.exec(r.text)?.[1] ?? "unknown",
        steps: stepRows(r),
      }));
    const recordLost = thread.replies
      .filter((r) => r.text.includes("Redis lost this rollout's record"))
      .map((r) => ({ at: at(r), rerun: RERUN.exec(r.text)?.[1] ?? null }));
    return [{ parentTs: parent.ts, postedAt: at(parent), reports, recordLost }];
  });
}

interface Button {
  readonly actionId: string;
  readonly value: string;
}

function buttons(m: StoredMessage): Button[] {
  const out: Button[] = [];
  for (const b of (m.blocks ?? []) as {
    type?: string;
    elements?: { action_id?: string; value?: string }[];
  }[])
    if (b.type === "actions")
      for (const e of b.elements ?? [])
        if (e.action_id !== undefined && e.value !== undefined)
          out.push({ actionId: e.action_id, value: e.value });
  return out;
}

/** What a careful person clicks: approve, else keep waiting, else continue anyway; never abort. */
const PREFERENCE: readonly string[] = [ActionId.Approve, ActionId.KeepWaiting, ActionId.ContinueAnyway];

/**
 * Clicks the prompts the bot posts in the campaign's threads on a live replica (again, maybe on another one, while
 * the prompt still shows its buttons). Returns a poll function: call it as the round goes.
 */
export function createClicker(
  slack: FakeSlackWebApi,
  livePorts: () => number[],
  pick: (n: number) => number,
  channels: readonly string[] = [CHAOS_SLACK.channel],
) {
  // When each prompt was last clicked: a prompt still offering its buttons 3 s after a click (the replica refused it,
  // or died before recording it) is clicked again, as a person would.
  const clicked = new Map<string, number>();
  return async (): Promise<number> => {
    let clicks = 0;
    for (const [channel, parent] of channels.flatMap((c) =>
      slack.store.channelMessages(c).map((m) => [c, m] as const),
    )) {
      const thread = slack.store.thread(channel, parent.ts);
      for (const m of [parent, ...(thread?.replies ?? [])]) {
        const offered = buttons(m);
        const choice = PREFERENCE.map((id) => offered.find((b) => b.actionId === id)).find(
          (b) => b !== undefined,
        );
        if (choice === undefined) continue;
        const key = `${m.ts}:${choice.value}`;
        if (Date.now() - (clicked.get(key) ?? Number.NEGATIVE_INFINITY) < 3_000) continue;
        const ports = livePorts();
        const port = ports[pick(ports.length)];
        if (port === undefined) return clicks;
        const request = buildBlockActionRequest({
          secret: CHAOS_SLACK.secret,
          userId: CHAOS_SLACK.user,
          channelId: channel,
          messageTs: m.ts,
          ...(m.threadTs === undefined ? {} : { threadTs: m.threadTs }),
          actionId: choice.actionId,
          value: choice.value,
          nowSeconds: Math.floor(Date.now() / 1000),
        });
        const answer = await fetch(`http://127.0.0.1:${port}/slack/events`, {
          method: "POST",
          headers: request.headers,
          body: request.body,
          signal: AbortSignal.timeout(5_000),
        }).catch(() => null);
        if (answer?.status === 200) {
          clicked.set(key, Date.now());
          clicks += 1;
        }
      }
    }
    return clicks;
  };
}
