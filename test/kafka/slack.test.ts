import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { ActionId } from "../../src/chat/action-ids.js";
import { createWebClientSlackWebApi } from "../../src/chat/web-client-slack-web-api.js";
import { createServeRuntime, type ServeRuntime } from "../../src/composition/serve-runtime.js";
import { configSchema } from "../../src/config/schema.js";
import { createMemoryJobStore } from "../../src/jobs/memory/memory-job-store.js";
import { systemClock } from "../../src/jobs/runner/system-clock.js";
import type { RunningLab } from "../../src/lab/start-lab.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import {
  buildBlockActionRequest,
  buildSlashCommandRequest,
} from "../../src/sandbox/web-api-signed-requests.js";
import { findButton, textOf } from "../chat/app/harness.js";
import { labState, startLabWithConfig, until } from "./lab-support.js";

/** The Slack path on a real cluster: the real Bolt app, signed requests, the fake Web API, the lab. */
const SECRET = "lab-signing-secret-0123";
const BOT_TOKEN = "xoxb-lab-token";
const CHANNEL = "CLAB00001";
const REQUESTER = "UREQLAB01";
const APPROVER = "UAPPLAB01";

let lab: RunningLab | null = null;
let fake: FakeSlackWebApi | null = null;
let runtime: ServeRuntime | null = null;
afterAll(async () => {
  await runtime?.stop();
  await fake?.close();
  await lab?.close();
});

describe("the Slack bot rolls a real cluster", () => {
  it("/connect-roll lab 4.1.1 on an eager group: the approver's click crosses the eager window, the thread ends succeeded", async () => {
    const started = await startLabWithConfig({
      kafka: "3.9.1",
      brokerVersion: "4.1.1",
      workers: 3,
      connectProtocols: { "worker-3": "eager" },
      connectors: 3,
      tasksPerConnector: 1,
      delayMs: 15_000,
      sessionTimeoutMs: 6_000,
    });
    lab = started.lab;
    const currentLab = lab;
    fake = await startFakeSlackWebApi({ botToken: BOT_TOKEN });
    const config = configSchema.parse({
      slack: {
        channels: [CHANNEL],
        requesters: { users: [REQUESTER, APPROVER] },
        approvers: { users: [APPROVER] },
        fourEyes: true,
      },
      clusters: { lab: started.cluster },
    });
    const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
    runtime = createServeRuntime({
      config,
      store: createMemoryJobStore(),
      api: createWebClientSlackWebApi({
        token: BOT_TOKEN,
        slackApiUrl: fake.apiUrl,
        logger,
        timeoutMs: 5_000,
      }),
      slack: {
        transport: { kind: "http", signingSecret: SECRET },
        botToken: BOT_TOKEN,
        slackApiUrl: fake.apiUrl,
        botId: "BLAB0001",
        botUserId: fake.botUserId,
        clientRetries: 0,
      },
      logger,
      replicaId: "lab-replica",
      lockTtlMs: 30_000,
      wallClock: systemClock,
      env: {},
      notifier: { postIntervalMs: 50, minUpdateIntervalMs: 200, updateSpacingMs: 50, baseBackoffMs: 50 },
      approvalPollMs: 200,
      orphanSweepMs: 600_000,
    });
    const { port } = await runtime.start(0);
    const send = async (request: { headers: Record<string, string>; body: string }) => {
      const r = await fetch(`http://127.0.0.1:${port}/slack/events`, {
        method: "POST",
        headers: request.headers,
        body: request.body,
      });
      return { status: r.status, text: await r.text() };
    };
    const nowSeconds = () => Math.floor(Date.now() / 1000);
    const ack = await send(
      buildSlashCommandRequest({
        secret: SECRET,
        command: "/connect-roll",
        text: "lab 4.1.1",
        userId: REQUESTER,
        userName: REQUESTER,
        channelId: CHANNEL,
        teamId: "T0LAB",
        responseUrl: "http://127.0.0.1:9/response",
        triggerId: "trigger-lab-1",
        nowSeconds: nowSeconds(),
      }),
    );
    expect(ack.status).toBe(200);
    const api = fake;
    const parent = await until("parent posted", async () => api.store.channelMessages(CHANNEL)[0], 30_000);
    const thread = () => {
      const view = api.store.thread(CHANNEL, parent.ts);
      if (view === undefined) throw new Error("no thread");
      return view;
    };
    const approve = await until(
      "eager-window prompt",
      async () => findButton(thread(), ActionId.Approve),
      60_000,
    );
    // Nothing restarted before the approval.
    expect(Object.values((await labState(currentLab)).counters.restarts)).toEqual([0, 0, 0]);
    const click = await send(
      buildBlockActionRequest({
        secret: SECRET,
        userId: APPROVER,
        channelId: CHANNEL,
        messageTs: approve.ts,
        threadTs: parent.ts,
        actionId: ActionId.Approve,
        value: approve.value,
        responseUrl: "http://127.0.0.1:9/response",
        nowSeconds: nowSeconds(),
      }),
    );
    expect(click.status).toBe(200);
    const report = await until(
      "final report",
      async () => thread().replies.find((r) => /succeeded after|failed after|aborted after/.test(r.text)),
      480_000,
    );
    expect(textOf(report)).toContain("succeeded");
    const after = await labState(currentLab);
    expect(Object.values(after.counters.restarts)).toEqual([1, 1, 1]);
    expect(after.workers.every((w) => w.version === "4.1.1")).toBe(true);
    expect(after.tasks.every((t) => t.state === "RUNNING")).toBe(true);
  });
});
