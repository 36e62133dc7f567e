import { pino } from "pino";
import { connectRedis, createRedisClient } from "../../src/jobs/redis/redis-client.js";
import { createRedisJobStore } from "../../src/jobs/redis/redis-job-store.js";
import type { JobStore } from "../../src/jobs/store/job-store.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { type SentinelGroup, startSentinelGroup } from "../redis/redis-sentinel-fixture.js";
import { type RedisServerProcess, startRedisServer } from "../redis/redis-server-process.js";
import { type ChaosCluster, type ChaosClusterKind, startChaosCluster } from "./chaos-cluster.js";
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
  readonly cluster: ChaosClusterKind;
  /** The lab's Kafka version (lab only). */
  readonly kafka?: string;
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
 * cluster (the simulator in real time, or a real lab) whose workers sit behind fault proxies, the executor's call
 * log, R serve replicas.
 */
export interface World {
  /** The one Redis server, or the Sentinel group's master when `sentinel` is set (see `sentinel`). */
  readonly redis: RedisServerProcess;
  readonly sentinel: SentinelGroup | null;
  readonly slack: FakeSlackWebApi;
  readonly cluster: ChaosCluster;
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
    const cluster = await startChaosCluster(o.cluster, {
      seed: o.seed,
      workers: o.workers,
      proxies,
      ...(o.kafka === undefined ? {} : { kafka: o.kafka }),
    });
    cleanups.push(() => cluster.close());
    const recorder = await startControlRecorder(cluster.controlUrl);
    cleanups.push(() => recorder.close());
    const configFor = (replica: string) => ({
      slack: {
        channels: [CHAOS_SLACK.channel],
        requesters: { users: [CHAOS_SLACK.user] },
        approvers: { users: [CHAOS_SLACK.user] },
        fourEyes: false,
      },
      clusters: { [cluster.name]: cluster.config(recorder.urlFor(replica)) },
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
    return { redis, sentinel, slack, cluster, proxies, recorder, replicas, withStore, close };
  } catch (err) {
    await close();
    throw err;
  }
}
