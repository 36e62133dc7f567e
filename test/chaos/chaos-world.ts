import { pino } from "pino";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { connectRedis, createRedisClient } from "../../src/jobs/redis/redis-client.js";
import { createRedisJobStore } from "../../src/jobs/redis/redis-job-store.js";
import type { JobStore } from "../../src/jobs/store/job-store.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { type SentinelGroup, startSentinelGroup } from "../redis/redis-sentinel-fixture.js";
import { type RedisServerProcess, startRedisServer } from "../redis/redis-server-process.js";
import { FAST_REAL_TIME_SIM } from "../support/fast-sim.js";
import { waitFor } from "../support/wait-for.js";
import { type ControlRecorder, startControlRecorder } from "./control-recorder.js";
import { type FaultProxy, startFaultProxy } from "./fault-proxy.js";
import { type ReplicaSet, startReplicaSet } from "./replica-set.js";

export const CHAOS_SLACK = {
  secret: "chaos-campaign-signing-secret",
  botToken: "xoxb-chaos-campaign",
  channel: "CCHAOS001",
  user: "UCHAOS001",
  team: "T0CHAOS",
} as const;
export const CHAOS_PREFIX = "chaos:";

export interface WorldOptions {
  readonly seed: number;
  readonly replicas: number;
  readonly workers: number;
  readonly lockTtlMs: number;
  readonly tag: string;
  /** Redis as a Sentinel group (a master, a replica, three sentinels) instead of one server: for a failover. */
  readonly sentinel: boolean;
}

/**
 * One round's world: a Redis of the campaign's own (no persistence, a free loopback port), the fake Slack Web API, a
 * simulated cluster in real time whose workers sit behind fault proxies, the executor's call log, R serve replicas.
 */
export interface World {
  /** The one Redis server, or the Sentinel group's master when `sentinel` is set (see `sentinel`). */
  readonly redis: RedisServerProcess;
  readonly sentinel: SentinelGroup | null;
  readonly slack: FakeSlackWebApi;
  readonly sim: RunningSim;
  readonly proxies: readonly FaultProxy[];
  readonly recorder: ControlRecorder;
  readonly replicas: ReplicaSet;
  /**
   * The campaign's own look at the bot's store (to find the lock holder, and leftovers at the end), each through a
   * fresh connection: a client kept across a failover or a Redis restart may still be reconnecting when asked.
   */
  withStore<T>(read: (store: JobStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startWorld(o: WorldOptions): Promise<World> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    const sentinel = o.sentinel ? await startSentinelGroup() : null;
    if (sentinel !== null) cleanups.push(() => sentinel.stop());
    const redis = sentinel?.master ?? (await startRedisServer());
    if (sentinel === null) cleanups.push(() => redis.stop());
    const redisUrl = sentinel?.url ?? redis.url;
    const slack = await startFakeSlackWebApi({ botToken: CHAOS_SLACK.botToken });
    cleanups.push(() => slack.close());
    const proxies = await Promise.all(
      Array.from({ length: o.workers }, () => startFaultProxy("http://127.0.0.1:9")),
    );
    cleanups.push(() => Promise.all(proxies.map((p) => p.close())));
    const sim = await startSim({
      ...FAST_REAL_TIME_SIM,
      workers: o.workers,
      connectors: 3,
      tasksPerConnector: 2,
      seed: o.seed,
      advertisedPorts: proxies.map((p) => p.port),
    });
    cleanups.push(() => sim.close());
    for (const [i, p] of proxies.entries()) p.retarget(sim.listenUrls[i] ?? "");
    const recorder = await startControlRecorder(sim.controlUrl);
    cleanups.push(() => recorder.close());
    await waitFor("every simulated task RUNNING", () => {
      const tasks = sim.cluster.state().tasks;
      return tasks.length > 0 && tasks.every((t) => t.state === "RUNNING");
    });
    const configFor = (replica: string) => ({
      slack: {
        channels: [CHAOS_SLACK.channel],
        requesters: { users: [CHAOS_SLACK.user] },
        approvers: { users: [CHAOS_SLACK.user] },
        fourEyes: false,
      },
      clusters: {
        sim: simClusterConfig({
          clusterName: "sim",
          workers: sim.workers,
          controlUrl: recorder.urlFor(replica),
          delayMs: 600,
          restartMs: 200,
          pollIntervalMs: 150,
          quietPeriodMs: 200,
          consecutivePolls: 2,
        }),
      },
    });
    const replicas = await startReplicaSet({
      count: o.replicas,
      tag: o.tag,
      configFor,
      env: {
        SLACK_BOT_TOKEN: CHAOS_SLACK.botToken,
        SLACK_SIGNING_SECRET: CHAOS_SLACK.secret,
        SLACK_API_URL: slack.apiUrl,
        REDIS_URL: redisUrl,
        CONNECT_ROLL_REDIS_PREFIX: CHAOS_PREFIX,
        CONNECT_ROLL_LOCK_TTL_MS: String(o.lockTtlMs),
        CONNECT_ROLL_ORPHAN_SWEEP_MS: "500",
      },
    });
    cleanups.push(() => replicas.close());
    const withStore = async <T>(read: (store: JobStore) => Promise<T>): Promise<T> => {
      const client = createRedisClient(redisUrl, pino({ level: "silent" }));
      try {
        await connectRedis(client, redisUrl, AbortSignal.timeout(5_000), 5_000);
        return await read(createRedisJobStore({ redis: client, prefix: CHAOS_PREFIX }));
      } finally {
        client.disconnect();
      }
    };
    return { redis, sentinel, slack, sim, proxies, recorder, replicas, withStore, close };
  } catch (err) {
    await close();
    throw err;
  }
}
