import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import pino from "pino";
import { afterEach } from "vitest";
import { createWebClientSlackWebApi } from "../../../src/chat/web-client-slack-web-api.js";
import { createServeRuntime, type ServeRuntime } from "../../../src/composition/serve-runtime.js";
import { simClusterConfig } from "../../../src/composition/sim-cluster-config.js";
import { simRunnerClock } from "../../../src/composition/sim-runner-clock.js";
import { configSchema } from "../../../src/config/schema.js";
import { createRedisJobStore } from "../../../src/jobs/redis/redis-job-store.js";
import { systemClock } from "../../../src/jobs/runner/system-clock.js";
import type { JobStore } from "../../../src/jobs/store/job-store.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../../src/sandbox/fake-slack-web-api.js";
import {
  appHomeOpenedEvent,
  blockActionPayload,
  buildBlockActionRequest,
  buildEventRequest,
  buildSlashCommandRequest,
  eventCallbackPayload,
  type SignedRequest,
  slashCommandFields,
} from "../../../src/sandbox/web-api-signed-requests.js";
import type { StoredMessage, ThreadView } from "../../../src/sandbox/web-api-store.js";
import { type RunningSim, startSim } from "../../../src/sim/start-sim.js";
import { QUICK_SIM, quickClusterConfig } from "../../cli/support/sim-config-file.js";
import { waitFor } from "../../support/wait-for.js";

export const SECRET = "test-signing-secret-0123";
export const BOT_TOKEN = "xoxb-test-token";
export const APP_TOKEN = "xapp-test-token";
export const CHANNEL = "CROLL0001";
export const OTHER_CHANNEL = "COTHER001";
export const REQUESTER = "UREQ00001";
export const APPROVER = "UAPP00001";
/** A member of the approvers' user group (not listed by id). */
export const GROUP_APPROVER = "UGRP00001";
export const APPROVER_GROUP = "SAPPROVE1";
export const STRANGER = "USTRANGE1";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export interface HarnessOptions {
  /** Simulated Kafka version of the workers; default 3.6.1. */
  readonly version?: string;
  /** Declared and simulated connect.protocol (eager: every step is an eager window). */
  readonly eager?: boolean;
  /** Bolt replicas sharing Redis; default 1. */
  readonly replicas?: number;
  readonly workers?: number;
  /** Change windows of every cluster (default: none, always open). */
  readonly changeWindows?: readonly { days: string[]; start: string; end: string; timezone: string }[];
  /** Lease length of every replica's cluster locks; default 5000. */
  readonly lockTtlMs?: number;
  /** How often every replica looks for orphaned rollouts; default 60 000 (never, in a test). */
  readonly orphanSweepMs?: number;
  /**
   * The sweep for final reports no replica posted (`ServeRuntimeOptions.owedReports`). Default: a grace of an hour of
   * simulated time (never, in a test), so a report Slack holds back is not taken for one a dead replica owes.
   */
  readonly owedReports?: { graceMs?: number; claimTtlMs?: number };
  /** The gate's `slowAfterMs` (simulated ms past the delay deadline or the stop); default: the product's. */
  readonly slowAfterMs?: number;
  /**
   * `socket`: every replica connects to the fake's Socket Mode server; `command` and `click` become envelopes (on the
   * newest connection, whatever `replica` says) and their replies are the acks' payloads. Default `http`.
   */
  readonly transport?: "http" | "socket";
  /** Socket Mode: how long the fake waits for an ack before it counts as late; default 3000 (Slack's). */
  readonly ackTimeoutMs?: number;
  /** How long a command may take before the bot acks "working on it" instead; default the product's 2000. */
  readonly replyWithinMs?: number;
  /** Per replica: how far its wall clock is off (ms; negative: behind). Default 0 for every replica. */
  readonly clockSkewMs?: readonly number[];
  /** Simulated ms per real ms; default 20. Lower widens the windows a test waits for (a step in flight). */
  readonly simSpeed?: number;
  /** How long a start waits for the thread parent's ts before the job starts without it; default 3000. */
  readonly parentWaitMs?: number;
  /** The Redis every replica uses (a test's own redis-server); default REDIS_URL, else the machine's 6379. */
  readonly redisUrl?: string;
  /**
   * Clusters of their own for a fleet: a quick simulator in real time per name (test/cli/support/sim-config-file.ts),
   * configured beside the harness's clusters, and `fleets` over them. The rollout engine then runs on the wall clock.
   */
  readonly fleetSims?: readonly string[];
  readonly fleets?: Record<string, unknown>;
  /** How often a fleet run reads its clusters' jobs and stage answers; default 100. */
  readonly fleetPollMs?: number;
}

export interface Replica {
  readonly runtime: ServeRuntime;
  readonly port: number;
  readonly redis: Redis;
  /** The replica's own job store (the one its runtime uses), for reading job records in assertions. */
  readonly store: JobStore;
}

export interface HttpReply {
  readonly status: number;
  readonly text: string;
  json(): Record<string, unknown>;
}

export interface Harness {
  readonly fake: FakeSlackWebApi;
  readonly sim: RunningSim;
  /** The fleet's own simulated clusters (`fleetSims`), by name. */
  readonly fleetSims: ReadonlyMap<string, RunningSim>;
  readonly replicas: readonly Replica[];
  /** What the bot sent to `response_url`s. */
  readonly responses: Record<string, unknown>[];
  readonly prefix: string;
  send(request: SignedRequest, replica?: number, path?: string): Promise<HttpReply>;
  command(
    text: string,
    options?: { user?: string; channel?: string; replica?: number; nowSeconds?: number },
  ): Promise<HttpReply>;
  click(input: {
    actionId: string;
    value: string;
    messageTs: string;
    threadTs?: string;
    user: string;
    replica?: number;
  }): Promise<HttpReply>;
  get(path: string, replica?: number): Promise<HttpReply>;
  /** `user` opens the app's Home tab (`app_home_opened`, as an HTTP event or a Socket Mode envelope). */
  openHome(user: string, replica?: number): Promise<HttpReply>;
  parents(channel?: string): StoredMessage[];
  thread(parentTs: string, channel?: string): ThreadView;
  /** test/support/wait-for.ts's `waitFor`, probing every 20 ms; `what` names the condition when it times out. */
  waitFor<T>(
    probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    timeoutMs: number,
    what: string,
  ): Promise<T>;
  /**
   * Kills replica `index` abruptly, as a crashed process: its Redis connection drops (its leases are neither renewed
   * nor released, so they expire), its Slack app stops answering and its notifier drops what it had not sent.
   */
  crash(index: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const prefix = `test-app-${randomUUID()}:`;
  const socket = options.transport === "socket";
  const fake = await startFakeSlackWebApi({
    botToken: BOT_TOKEN,
    appToken: APP_TOKEN,
    socketMode: { ackTimeoutMs: options.ackTimeoutMs ?? 3000, pingIntervalMs: 500 },
  });
  fake.store.setUserGroup(APPROVER_GROUP, [GROUP_APPROVER]);
  const responses: Record<string, unknown>[] = [];
  const responseServer = await startResponseRecorder(responses);
  const responseUrl = `http://127.0.0.1:${(responseServer.address() as AddressInfo).port}/response`;
  const sim = await startSim({
    virtualTime: false,
    speed: options.simSpeed ?? 20,
    workers: options.workers ?? 3,
    connectors: 3,
    tasksPerConnector: 2,
    version: options.version ?? "3.6.1",
    connectProtocol: options.eager === true ? "eager" : null,
    delayMs: 2000,
    restartMs: 500,
    seed: 5,
  });
  await waitFor("the simulator to be stable (6 tasks RUNNING, none held)", () => {
    const state = sim.cluster.state();
    return (
      state.tasks.length === 6 &&
      state.tasks.every((t) => t.state === "RUNNING") &&
      state.heldTasks.length === 0
    );
  });
  const simCluster = simClusterConfig({
    clusterName: "sim",
    workers: sim.workers,
    controlUrl: sim.controlUrl,
    delayMs: 2000,
    restartMs: 500,
    pollIntervalMs: 200,
    consecutivePolls: 2,
    quietPeriodMs: 500,
  });
  const simGate = typeof simCluster.gate === "object" && simCluster.gate !== null ? simCluster.gate : {};
  const cluster = {
    ...simCluster,
    ...(options.slowAfterMs === undefined ? {} : { gate: { ...simGate, slowAfterMs: options.slowAfterMs } }),
    connect: { scheduledRebalanceMaxDelayMs: 2000, ...(options.eager === true ? { protocol: "eager" } : {}) },
  };
  const fleetSims = new Map<string, RunningSim>();
  for (const [i, name] of (options.fleetSims ?? []).entries())
    fleetSims.set(name, await startSim({ ...QUICK_SIM, connectors: 2, tasksPerConnector: 2, seed: 40 + i }));
  for (const [name, s] of fleetSims)
    await waitFor(`${name} running every task`, () => {
      const st = s.cluster.state();
      return st.leader !== null && st.tasks.length > 0 && st.tasks.every((t) => t.state === "RUNNING");
    });
  const fleetClusters = Object.fromEntries(
    [...fleetSims].map(([name, s]) => [name, quickClusterConfig(name, s)]),
  );
  const config = configSchema.parse({
    slack: {
      channels: [CHANNEL],
      requesters: { users: [REQUESTER, APPROVER] },
      approvers: { users: [APPROVER], userGroups: [APPROVER_GROUP] },
      fourEyes: true,
      changeWindows: options.changeWindows ?? [],
    },
    clusters: { sim: cluster, "sim-eu": cluster, "prod-cluster": cluster, ...fleetClusters },
    fleets: { everywhere: { stages: [["sim"], ["sim-eu", "prod-cluster"]] }, ...options.fleets },
  });
  const replicas: Replica[] = [];
  for (let i = 0; i < (options.replicas ?? 1); i += 1) {
    const redis = new Redis(redisUrl, {
      commandTimeout: 2000,
      maxRetriesPerRequest: 2,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    await redis.connect();
    const api = createWebClientSlackWebApi({
      token: BOT_TOKEN,
      slackApiUrl: fake.apiUrl,
      logger,
      timeoutMs: 5000,
    });
    const store = createRedisJobStore({ redis, prefix });
    const runtime = createServeRuntime({
      config,
      store,
      api,
      slack: {
        transport: socket
          ? {
              kind: "socket",
              appToken: APP_TOKEN,
              healthPort: 0,
              healthHost: "127.0.0.1",
              clientPingTimeoutMs: 2000,
            }
          : { kind: "http", signingSecret: SECRET },
        botToken: BOT_TOKEN,
        slackApiUrl: fake.apiUrl,
        botId: "BBOT0001",
        botUserId: fake.botUserId,
        clientRetries: 0,
        parentWaitMs: options.parentWaitMs ?? 3000,
        ...(options.replyWithinMs === undefined ? {} : { replyWithinMs: options.replyWithinMs }),
      },
      logger: logger.child({ replica: i }),
      replicaId: `replica-${i}`,
      lockTtlMs: options.lockTtlMs ?? 5000,
      wallClock: skewed(options.clockSkewMs?.[i] ?? 0),
      ...(fleetSims.size > 0 ? {} : { runnerClock: simRunnerClock(sim) }),
      fleetPollMs: options.fleetPollMs ?? 100,
      env: {},
      notifier: { postIntervalMs: 20, minUpdateIntervalMs: 50, updateSpacingMs: 10, baseBackoffMs: 50 },
      approvalPollMs: 100,
      orphanSweepMs: options.orphanSweepMs ?? 60_000,
      owedReports: { graceMs: 3_600_000, ...options.owedReports },
    });
    const { port } = await runtime.start(0);
    replicas.push({ runtime, port, redis, store });
  }

  async function send(request: SignedRequest, replica = 0, path = "/slack/events"): Promise<HttpReply> {
    const target = replicas[replica];
    if (target === undefined) throw new Error(`no replica ${replica}`);
    const response = await fetch(`http://127.0.0.1:${target.port}${path}`, {
      method: "POST",
      headers: request.headers,
      body: request.body,
    });
    return reply(response.status, await response.text());
  }

  async function envelope(
    type: "slash_commands" | "interactive",
    payload: Record<string, unknown>,
  ): Promise<HttpReply> {
    const ack = await fake.socketMode.deliver(type, payload);
    return reply(200, ack.payload === null ? "" : JSON.stringify(ack.payload));
  }

  let triggers = 0;
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  return {
    fake,
    sim,
    fleetSims,
    replicas,
    responses,
    prefix,
    send,
    command(text, o = {}) {
      triggers += 1;
      const fields = {
        command: "/connect-roll",
        text,
        userId: o.user ?? REQUESTER,
        userName: o.user ?? REQUESTER,
        channelId: o.channel ?? CHANNEL,
        teamId: "T0SANDBOX",
        responseUrl,
        triggerId: `trigger-${prefix}-${triggers}`,
        nowSeconds: o.nowSeconds ?? nowSeconds(),
      };
      if (socket) return envelope("slash_commands", slashCommandFields(fields));
      return send(buildSlashCommandRequest({ secret: SECRET, ...fields }), o.replica ?? 0);
    },
    click(input) {
      triggers += 1;
      const fields = {
        userId: input.user,
        channelId: CHANNEL,
        messageTs: input.messageTs,
        ...(input.threadTs === undefined ? {} : { threadTs: input.threadTs }),
        actionId: input.actionId,
        value: input.value,
        responseUrl,
        triggerId: `click-${prefix}-${triggers}`,
        nowSeconds: nowSeconds(),
      };
      if (socket) return envelope("interactive", blockActionPayload(fields));
      return send(buildBlockActionRequest({ secret: SECRET, ...fields }), input.replica ?? 0);
    },
    async openHome(user, replica = 0) {
      const event = { event: appHomeOpenedEvent(user), nowSeconds: nowSeconds() };
      if (socket) {
        await fake.socketMode.deliver("events_api", eventCallbackPayload(event));
        return reply(200, "");
      }
      return send(buildEventRequest({ secret: SECRET, ...event }), replica);
    },
    async get(path, replica = 0) {
      const response = await fetch(`http://127.0.0.1:${replicas[replica]?.port ?? 0}${path}`);
      return reply(response.status, await response.text());
    },
    parents: (channel = CHANNEL) => fake.store.channelMessages(channel),
    thread(parentTs, channel = CHANNEL) {
      const view = fake.store.thread(channel, parentTs);
      if (view === undefined) throw new Error(`no thread ${parentTs}`);
      return view;
    },
    waitFor: (probe, timeoutMs, what) => waitFor(what, probe, { timeoutMs, intervalMs: 20 }),
    async crash(index) {
      const target = replicas[index];
      if (target === undefined) throw new Error(`no replica ${index}`);
      void target.runtime.notifier.close();
      target.redis.disconnect();
      await target.runtime.slack.stop();
    },
    async close() {
      for (const r of replicas) await r.runtime.stop();
      for (const r of replicas) await r.redis.quit().catch(() => r.redis.disconnect());
      const cleaner = new Redis(redisUrl);
      const keys = await cleaner.keys(`${prefix}*`);
      if (keys.length > 0) await cleaner.del(...keys);
      await cleaner.quit();
      await sim.close();
      for (const s of fleetSims.values()) await s.close();
      await fake.close();
      await new Promise<void>((resolve) => {
        responseServer.close(() => resolve());
        responseServer.closeAllConnections();
      });
    },
  };
}

function skewed(ms: number): typeof systemClock {
  return ms === 0 ? systemClock : { now: () => Date.now() + ms, sleep: systemClock.sleep };
}

function reply(status: number, text: string): HttpReply {
  return { status, text, json: () => (text === "" ? {} : (JSON.parse(text) as Record<string, unknown>)) };
}

async function startResponseRecorder(into: Record<string, unknown>[]): Promise<Server> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      try {
        into.push(JSON.parse(body) as Record<string, unknown>);
      } catch {
        into.push({ raw: body });
      }
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return server;
}

/**
 * A harness per test, closed after it: call at the top level of a test file (`const startHarness = useHarness();`),
 * then start one in each test with the options it needs.
 */
export function useHarness(): (options?: HarnessOptions) => Promise<Harness> {
  let current: Harness | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (options) => {
    current = await startHarness(options);
    return current;
  };
}

/** The value and ts of the button `actionId` in a thread's replies. */
export function findButton(thread: ThreadView, actionId: string): { value: string; ts: string } | undefined {
  for (const message of thread.replies) {
    for (const block of message.blocks ?? []) {
      const elements = (block as { elements?: { action_id?: string; value?: string }[] }).elements ?? [];
      const button = elements.find((e) => e.action_id === actionId);
      if (button?.value !== undefined) return { value: button.value, ts: message.ts };
    }
  }
  return undefined;
}

/** Everything a message says (text and blocks), for `toContain` checks. */
export function textOf(message: { text: string; blocks?: unknown[] } | undefined): string {
  return message === undefined ? "" : `${message.text}\n${JSON.stringify(message.blocks ?? [])}`;
}
