import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Notifier } from "../../src/chat/notifier.js";
import { createOwedReports, type OwedReports } from "../../src/chat/owed-reports.js";
import type { SlackWebApi } from "../../src/chat/slack-web-api.js";
import { createThreadNotifier } from "../../src/chat/thread-notifier.js";
import { threadKeys } from "../../src/chat/thread-reporter.js";
import { createWebClientSlackWebApi } from "../../src/chat/web-client-slack-web-api.js";
import { createMemoryJobData, type MemoryJobData } from "../../src/jobs/memory/memory-job-data.js";
import { createMemoryJobStore } from "../../src/jobs/memory/memory-job-store.js";
import { systemClock } from "../../src/jobs/runner/system-clock.js";
import type { JobRecord } from "../../src/jobs/store/job-record.js";
import type { JobStore } from "../../src/jobs/store/job-store.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { aJob } from "../jobs/store/job-fixtures.js";
import { waitFor } from "../support/wait-for.js";
import { aRollout } from "./views/rollout-state-builder.js";

const logger = pino({ level: "silent" });
const token = "xoxb-test-token";
const CHANNEL = "COWED0001";
const GRACE_MS = 60_000;
const DAY_MS = 24 * 60 * 60_000;
const CLAIM_TTL_MS = 5 * 60_000;
/** The records' clock and the stores' (claims): moved by the test. */
let now = Date.UTC(2026, 0, 5, 12);

let fake: FakeSlackWebApi;
let api: SlackWebApi;
const notifiers: Notifier[] = [];
beforeEach(async () => {
  fake = await startFakeSlackWebApi({ botToken: token });
  api = createWebClientSlackWebApi({ token, slackApiUrl: fake.apiUrl, timeoutMs: 2000, logger });
});
afterEach(async () => {
  for (const notifier of notifiers.splice(0)) await notifier.close();
  await fake.close();
});

interface Replica {
  readonly store: JobStore;
  readonly owed: OwedReports;
}

/** A bot replica's store (over the shared data) and its sweep, posting through a real notifier to the fake Slack. */
function replica(data: MemoryJobData, id: string): Replica {
  const store = createMemoryJobStore({ data, now: () => now });
  const notifier = createThreadNotifier({
    api,
    clock: systemClock,
    logger,
    postIntervalMs: 10,
    minUpdateIntervalMs: 10,
    updateSpacingMs: 0,
    baseBackoffMs: 10,
  });
  notifiers.push(notifier);
  const owed = createOwedReports({
    store,
    notifier,
    logger,
    replicaId: id,
    now: () => now,
    graceMs: GRACE_MS,
    maxAgeMs: DAY_MS,
    claimTtlMs: CLAIM_TTL_MS,
  });
  return { store, owed };
}

/** A thread's parent, posted for real. */
async function aThread(): Promise<{ channel: string; ts: string }> {
  const { ts } = await api.postMessage({ channel: CHANNEL, text: "connect-roll · prod → v3.7.1" });
  return { channel: CHANNEL, ts };
}

/** A job as the replica that finished it leaves it when it dies before posting the report: finished `agoMs` ago. */
function finishedJob(
  thread: { channel: string; ts: string } | null,
  agoMs: number,
  startedAgoMs = agoMs + 600_000,
) {
  const state = aRollout({ cluster: "prod", to: "3.7.1" })
    .settled(1)
    .finished("succeeded", { kind: "all-settled" })
    .build();
  return aJob({
    status: "succeeded",
    createdAt: now - startedAgoMs,
    updatedAt: now - agoMs,
    thread,
    state,
  });
}

const reportsIn = (thread: { ts: string }) =>
  (fake.store.thread(CHANNEL, thread.ts)?.replies ?? []).filter((r) => /succeeded after/.test(r.text));

async function recordedReport(store: JobStore, job: JobRecord): Promise<string> {
  return waitFor("the report's ts recorded in the job", async () => {
    const messages = (await store.loadJob(job.id)).messages;
    return messages?.[threadKeys.report(job.id)];
  });
}

describe("the final reports no replica posted", () => {
  it("are posted by one sweep into their thread, broadcast, and recorded; only finished, threaded, unreported, recent jobs past the grace", async () => {
    const data = createMemoryJobData();
    const a = replica(data, "bot-a");
    const b = replica(data, "bot-b");
    const owedThread = await aThread();
    const owed = finishedJob(owedThread, GRACE_MS + 1_000);
    const notOwed = [
      finishedJob(await aThread(), GRACE_MS - 1_000), // its replica may still be posting it
      finishedJob(null, GRACE_MS + 1_000), // started from a terminal: no thread
      { ...finishedJob(await aThread(), GRACE_MS + 1_000), status: "running" as const },
      finishedJob(await aThread(), GRACE_MS + 1_000, DAY_MS + 1_000), // started before the bound
    ];
    const reported = finishedJob(await aThread(), GRACE_MS + 1_000);
    const reportedInChannel = finishedJob(await aThread(), GRACE_MS + 1_000);
    for (const job of [owed, ...notOwed, reported, reportedInChannel]) await a.store.createJob(job);
    await a.store.recordSlackMessages(reported.id, { messages: { [threadKeys.report(reported.id)]: "1.1" } });
    await a.store.recordSlackMessages(reportedInChannel.id, {
      messages: { [threadKeys.reportInChannel(reportedInChannel.id)]: "1.2" },
    });

    const [first, second] = await Promise.all([a.owed.sweep(), b.owed.sweep()]);
    expect([...(first ?? []), ...(second ?? [])]).toEqual([owed.id]);
    const ts = await recordedReport(a.store, owed);
    const [report, ...more] = reportsIn(owedThread);
    expect(more).toEqual([]);
    expect(report).toMatchObject({ ts, threadTs: owedThread.ts, broadcast: true });
    // The parent shows the rollout's end too (the dead replica may not have got that far either).
    await waitFor("the parent updated to the result", () =>
      /succeeded/.test(fake.store.message(CHANNEL, owedThread.ts)?.text ?? ""),
    );

    // Recorded: no replica posts it again, even once the claim has lapsed.
    now += CLAIM_TTL_MS + 1;
    expect(await b.owed.sweep()).toEqual([notOwed[0]?.id]);
    expect(await a.owed.sweep()).toEqual([]);
    expect(reportsIn(owedThread)).toHaveLength(1);
  });

  it("that Slack refuses stay owed: the claim keeps other replicas off until it lapses, then another posts it", async () => {
    const data = createMemoryJobData();
    const a = replica(data, "bot-a");
    const b = replica(data, "bot-b");
    const thread = await aThread();
    const job = finishedJob(thread, GRACE_MS + 1_000);
    await a.store.createJob(job);
    // The thread's reply and the channel's fallback both refused, for good.
    fake.failNext("chat.postMessage", { error: "channel_not_found", times: 2 });

    expect(await a.owed.sweep()).toEqual([job.id]);
    await waitFor("the thread's post and the channel's fallback refused", () =>
      fake.calls("chat.postMessage").filter((c) => c.error === "channel_not_found").length === 2
        ? true
        : undefined,
    );
    expect(await b.owed.sweep()).toEqual([]);
    expect((await a.store.loadJob(job.id)).messages).toBeUndefined();

    now += CLAIM_TTL_MS + 1;
    expect(await b.owed.sweep()).toEqual([job.id]);
    const ts = await recordedReport(b.store, job);
    expect(reportsIn(thread).map((r) => r.ts)).toEqual([ts]);
  });
});
