import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { createWebClientSlackWebApi } from "../chat/web-client-slack-web-api.js";
import { createServeRuntime, type ServeRuntime } from "../composition/serve-runtime.js";
import { simRunnerClock } from "../composition/sim-runner-clock.js";
import { createMemoryJobStore } from "../jobs/memory/memory-job-store.js";
import { createRedisJobStore } from "../jobs/redis/redis-job-store.js";
import { systemClock } from "../jobs/runner/system-clock.js";
import type { JobStore } from "../jobs/store/job-store.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../sandbox/fake-slack-web-api.js";
import { type BotClient, createBotClient } from "../sandbox/sandbox-bot-client.js";
import { startSandboxServer } from "../sandbox/sandbox-server.js";
import { buildSnapshot, type SandboxInfo } from "../sandbox/sandbox-snapshot.js";
import { type RunningSim, startSim } from "../sim/start-sim.js";
import {
  APPROVER,
  DEMO_APPROVER_GROUP,
  DEMO_BOT,
  DEMO_CHANNEL,
  DEMO_TEAM_ID,
  DEMO_USERS,
  demoConfig,
} from "./demo-config.js";
import {
  DEMO_FLEET,
  type DemoScenario,
  type DemoScenarioName,
  demoFleetSim,
  demoScenario,
} from "./demo-scenarios.js";

/**
 * `connect-roll demo`: a simulated 6-worker cluster in real time, the real bot (Bolt over HTTP, the same runtime as
 * `serve`), a local stand-in for Slack's Web API, and the sandbox page that plays Slack for a person: it sends the bot
 * signed slash commands and button clicks and renders the channel live.
 */
export interface DemoOptions {
  /** The page's port on 127.0.0.1; 0 = any free port. */
  readonly port: number;
  readonly scenario: DemoScenarioName;
  /** Real Redis as the job store; default the in-process store. */
  readonly redisUrl?: string;
  readonly logger: Logger;
}

export interface RunningDemo {
  /** The page. */
  readonly url: string;
  readonly scenario: DemoScenario;
  readonly channel: string;
  readonly slack: FakeSlackWebApi;
  readonly sim: RunningSim;
  readonly runtime: ServeRuntime;
  close(): Promise<void>;
}

const SIGNING_SECRET = `sandbox-${randomUUID()}`;
const MAX_LOG = 50;

export async function startDemo(o: DemoOptions): Promise<RunningDemo> {
  const logger = o.logger;
  const scenario = demoScenario(o.scenario);
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const closeAll = async () => {
    for (const cleanup of cleanups.reverse()) {
      await Promise.resolve()
        .then(cleanup)
        .catch((err: unknown) => logger.warn({ err }, "demo shutdown step failed"));
    }
  };
  try {
    const slack = await startFakeSlackWebApi({
      botToken: DEMO_BOT.token,
      botUserId: DEMO_BOT.userId,
      botId: DEMO_BOT.botId,
      teamId: DEMO_TEAM_ID,
    });
    cleanups.push(() => slack.close());
    slack.store.setUserGroup(DEMO_APPROVER_GROUP.id, [APPROVER]);

    const sim = await startSim(scenario.sim);
    cleanups.push(() => sim.close());
    const fleetSims = new Map<string, RunningSim>();
    for (const [i, name] of DEMO_FLEET.stages.flat().entries()) {
      const fleetSim = await startSim(demoFleetSim(i));
      cleanups.push(() => fleetSim.close());
      fleetSims.set(name, fleetSim);
    }
    // A command typed while the group still forms its first assignment would plan against a half-listed cluster.
    await steadyCluster(sim);
    for (const fleetSim of fleetSims.values()) await steadyCluster(fleetSim);
    const log: string[] = [];
    const changes = new Set<() => void>();
    const addLog = (line: string) => {
      log.push(`${new Date().toISOString().slice(11, 19)} ${line}`);
      if (log.length > MAX_LOG) log.shift();
      for (const listener of changes) listener();
    };
    if (scenario.during !== undefined) cleanups.push(scenario.during(sim, addLog, logger));
    const offSim = sim.cluster.onEvent((event) =>
      addLog(`${event.worker} ${event.kind === "worker-up" ? "is up" : "went down"}`),
    );
    cleanups.push(offSim);

    const { store, closeRedis } = await openStore(o.redisUrl, logger);
    cleanups.push(closeRedis);
    const api = createWebClientSlackWebApi({
      token: DEMO_BOT.token,
      slackApiUrl: slack.apiUrl,
      logger,
      timeoutMs: 5_000,
    });
    const runtime = createServeRuntime({
      config: demoConfig(sim, scenario, o.redisUrl, fleetSims),
      store,
      api,
      slack: {
        transport: { kind: "http", signingSecret: SIGNING_SECRET },
        botToken: DEMO_BOT.token,
        slackApiUrl: slack.apiUrl,
        botId: DEMO_BOT.botId,
        botUserId: DEMO_BOT.userId,
        clientRetries: 0,
        parentWaitMs: 3_000,
      },
      logger,
      replicaId: `demo-${process.pid}`,
      lockTtlMs: 15_000,
      wallClock: systemClock,
      runnerClock: simRunnerClock(sim),
      env: {},
      notifier: { postIntervalMs: 150, minUpdateIntervalMs: 400, updateSpacingMs: 100, baseBackoffMs: 200 },
      approvalPollMs: 200,
      orphanSweepMs: 60_000,
    });
    const { port: botPort } = await runtime.start(0);
    cleanups.push(() => runtime.stop());

    const info: SandboxInfo = {
      channel: DEMO_CHANNEL,
      users: DEMO_USERS,
      groups: { [DEMO_APPROVER_GROUP.id]: DEMO_APPROVER_GROUP.handle },
      bot: { userId: DEMO_BOT.userId, name: DEMO_BOT.name },
      scenario: {
        name: scenario.name,
        title: scenario.title,
        note: scenario.note,
        command: scenario.command,
      },
    };
    let bot: BotClient | undefined;
    const server = await startSandboxServer({
      port: o.port,
      logger,
      snapshot: () => buildSnapshot(info, slack.store, sim.cluster.state(), log),
      bot: () => {
        if (bot === undefined) throw new Error("the sandbox is still starting");
        return bot;
      },
      onChange(listener) {
        changes.add(listener);
        const off = slack.onChange(() => listener());
        return () => {
          changes.delete(listener);
          off();
        };
      },
    });
    cleanups.push(() => server.close());
    bot = createBotClient({
      eventsUrl: `http://127.0.0.1:${botPort}/slack/events`,
      signingSecret: SIGNING_SECRET,
      teamId: DEMO_TEAM_ID,
      channel: DEMO_CHANNEL,
      commandName: "/connect-roll",
      store: slack.store,
      botUserId: DEMO_BOT.userId,
      responseUrlFor: (user) => `${server.url}/response/${user}`,
      userName: (user) => DEMO_USERS.find((u) => u.id === user)?.name ?? user,
    });
    logger.info(
      { url: server.url, scenario: scenario.name, store: o.redisUrl === undefined ? "in-process" : "redis" },
      "demo started",
    );
    let closing: Promise<void> | undefined;
    return {
      url: server.url,
      scenario,
      channel: DEMO_CHANNEL.id,
      slack,
      sim,
      runtime,
      close() {
        closing ??= closeAll();
        return closing;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

async function openStore(
  redisUrl: string | undefined,
  logger: Logger,
): Promise<{ store: JobStore; closeRedis: () => Promise<void> }> {
  if (redisUrl === undefined) return { store: createMemoryJobStore(), closeRedis: async () => undefined };
  const redis = new Redis(redisUrl, {
    commandTimeout: 2000,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: false,
    lazyConnect: true,
  });
  redis.on("error", (err: unknown) => logger.warn({ err }, "redis connection error"));
  await redis.connect();
  const prefix = `connect-roll-demo:${randomUUID().slice(0, 8)}:`;
  return {
    store: createRedisJobStore({ redis, prefix }),
    async closeRedis() {
      const keys = await redis.keys(`${prefix}*`).catch(() => []);
      if (keys.length > 0) await redis.del(...keys).catch(() => 0);
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Resolves once every task runs on a live worker and no rebalance delay is open (at most `timeoutMs`). */
async function steadyCluster(sim: RunningSim, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = sim.cluster.state();
    const steady =
      s.workers.every((w) => w.state === "running") &&
      s.heldTasks.length === 0 &&
      s.delayDeadline === null &&
      s.tasks.every((t) => t.state === "RUNNING" && t.workerId !== null);
    if (steady) break;
    if (Date.now() > deadline) throw new Error("the simulated cluster did not settle at start");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await sim.settle();
}
