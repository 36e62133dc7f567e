import { pino } from "pino";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { connectRedis, createRedisClient } from "../../src/jobs/redis/redis-client.js";
import { createRedisJobStore } from "../../src/jobs/redis/redis-job-store.js";
import type { JobStore } from "../../src/jobs/store/job-store.js";
import { type FakeSlackWebApi, startFakeSlackWebApi } from "../../src/sandbox/fake-slack-web-api.js";
import { SLACK_RATE_LIMITS } from "../../src/sandbox/web-api-rate-limits.js";
import type { StoredMessage } from "../../src/sandbox/web-api-store.js";
import { createPrng } from "../../src/sim/prng.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { createClicker, stepRows } from "../chaos/chaos-thread.js";
import { CHAOS_SLACK } from "../chaos/chaos-world.js";
import { type ReplicaSet, startReplicaSet } from "../chaos/replica-set.js";
import { startRedisServer } from "../redis/redis-server-process.js";
import { FAST_REAL_TIME_SIM } from "../support/fast-sim.js";
import { sendSlashCommand } from "../support/send-slash-command.js";
import { waitFor } from "../support/wait-for.js";
import { type GroupSample, sampleGroup } from "./process-stats.js";

/**
 * The load run: R `connect-roll serve` replicas on one Redis roll N simulated clusters at once, the fake Slack Web API
 * enforcing Slack's per-method rate limits (429 with Retry-After). Every cluster's command is typed at the same moment,
 * spread over the replicas and C channels; prompts are clicked as a careful person would. It ends when every cluster
 * has its final report and Redis holds no lock and no unfinished job, then checks from the simulators' own counters
 * that each worker was restarted exactly once and every task runs.
 */
export interface LoadOptions {
  readonly clusters: number;
  readonly replicas: number;
  readonly channels: number;
  readonly workers: number;
  /** How long the whole run may take before it counts as stuck. */
  readonly deadlineMs: number;
  readonly seed: number;
}

export interface ClusterOutcome {
  readonly cluster: string;
  readonly threads: number;
  /** The final reports' results ("succeeded", "aborted", "failed"). */
  readonly results: readonly string[];
  /** Workers the final report lists as settled. */
  readonly settled: number;
  /** How often the simulator saw each of its workers restarted. */
  readonly restarts: Readonly<Record<string, number>>;
  readonly tasksNotRunning: readonly string[];
}

export interface MethodCalls {
  readonly method: string;
  readonly calls: number;
  readonly limited: number;
  /** Calls in the busiest minute since the first command. */
  readonly busiestMinute: number;
}

export interface ReplicaFigures {
  readonly id: string;
  readonly cpuMs: number;
  readonly peakRssBytes: number;
}

export interface LoadResult {
  readonly options: LoadOptions;
  /** From the commands to the moment every cluster's final report was in its thread. */
  readonly reportedMs: number | null;
  /** From the commands to every parent showing the result and Redis holding no lock or job. */
  readonly wallMs: number;
  readonly outcomes: readonly ClusterOutcome[];
  /** Why the run is not a pass, one line each; empty when everything held. */
  readonly problems: readonly string[];
  readonly replicas: readonly ReplicaFigures[];
  readonly redisCommands: number;
  readonly slack: readonly MethodCalls[];
  readonly clicks: number;
  readonly commandsTyped: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const channelId = (i: number) => `CLOAD${String(i + 1).padStart(4, "0")}`;
const clusterName = (i: number) => `load-${String(i + 1).padStart(2, "0")}`;
const FINAL = /(succeeded|aborted|failed)/;

interface ClusterUnderLoad {
  readonly name: string;
  readonly channel: string;
  readonly sim: RunningSim;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const slack = await startFakeSlackWebApi({
      botToken: CHAOS_SLACK.botToken,
      rateLimits: SLACK_RATE_LIMITS,
    });
    cleanups.push(() => slack.close());
    const clusters: ClusterUnderLoad[] = [];
    cleanups.push(() => Promise.all(clusters.map((c) => c.sim.close())));
    for (let i = 0; i < o.clusters; i += 1) {
      const sim = await startSim({
        ...FAST_REAL_TIME_SIM,
        workers: o.workers,
        connectors: 3,
        tasksPerConnector: 2,
        seed: o.seed + i,
      });
      clusters.push({ name: clusterName(i), channel: channelId(i % o.channels), sim });
    }
    await waitFor("every simulated task RUNNING", () =>
      clusters.every((c) => c.sim.cluster.state().tasks.every((t) => t.state === "RUNNING")),
    );
    const channels = [...new Set(clusters.map((c) => c.channel))];
    const config = {
      slack: {
        channels,
        requesters: { users: [CHAOS_SLACK.user] },
        approvers: { users: [CHAOS_SLACK.user] },
        fourEyes: false,
      },
      clusters: Object.fromEntries(
        clusters.map((c) => [
          c.name,
          simClusterConfig({
            clusterName: c.name,
            workers: c.sim.workers,
            controlUrl: c.sim.controlUrl,
            delayMs: 600,
            restartMs: 200,
            pollIntervalMs: 300,
            quietPeriodMs: 300,
            consecutivePolls: 2,
          }),
        ]),
      ),
    };
    const replicas = await startReplicaSet({
      count: o.replicas,
      tag: `load${o.seed}`,
      configFor: () => config,
      env: {
        SLACK_BOT_TOKEN: CHAOS_SLACK.botToken,
        SLACK_SIGNING_SECRET: CHAOS_SLACK.secret,
        SLACK_API_URL: slack.apiUrl,
        REDIS_URL: redis.url,
        CONNECT_ROLL_REDIS_PREFIX: "load:",
      },
    });
    cleanups.push(() => replicas.close());
    const withStore = async <T>(read: (store: StoreWithCount) => Promise<T>): Promise<T> => {
      const client = createRedisClient(redis.url, pino({ level: "silent" }));
      try {
        await connectRedis(client, redis.url, AbortSignal.timeout(5_000), 5_000);
        const commands = Number(/total_commands_processed:(\d+)/.exec(await client.info("stats"))?.[1] ?? 0);
        return await read(
          Object.assign(createRedisJobStore({ redis: client, prefix: "load:" }), { commands }),
        );
      } finally {
        client.disconnect();
      }
    };
    return await drive(o, clusters, channels, slack, replicas, withStore);
  } finally {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  }
}

type StoreWithCount = JobStore & { readonly commands: number };

async function drive(
  o: LoadOptions,
  clusters: readonly ClusterUnderLoad[],
  channels: readonly string[],
  slack: FakeSlackWebApi,
  replicas: ReplicaSet,
  withStore: <T>(read: (store: StoreWithCount) => Promise<T>) => Promise<T>,
): Promise<LoadResult> {
  const prng = createPrng(o.seed);
  const redisBefore = await withStore(async (s) => s.commands);
  const cpuBefore = new Map(replicas.replicas.map((r) => [r.id, sampleGroup(r.pid).cpuMs]));
  const peakRss = new Map<string, number>();
  const sample = () => {
    const now = new Map<string, GroupSample>();
    for (const r of replicas.replicas) {
      const s = sampleGroup(r.pid);
      now.set(r.id, s);
      peakRss.set(r.id, Math.max(peakRss.get(r.id) ?? 0, s.rssBytes));
    }
    return now;
  };
  const threadsOf = (c: ClusterUnderLoad): StoredMessage[] =>
    slack.store.channelMessages(c.channel).filter((m) => new RegExp(`\\b${c.name}\\b`).test(m.text));
  const reportsOf = (c: ClusterUnderLoad, parent: StoredMessage) =>
    (slack.store.thread(c.channel, parent.ts)?.replies ?? []).filter(
      (r) => r.broadcast === true && FINAL.test(r.text),
    );
  const ports = () => replicas.live().map((r) => r.port);
  const click = createClicker(slack, ports, (n) => prng.int(n), channels);

  const started = Date.now();
  let typed = 0;
  // Clusters whose command a replica answered 200: the bot took it, and its thread comes when Slack lets it through
  // (a channel's posts wait out its 429s), so it is never typed again; a command no replica answered is.
  const taken = new Set<string>();
  const type = async (c: ClusterUnderLoad, i: number) => {
    typed += 1;
    const live = ports();
    const answer = await sendSlashCommand({
      port: live[i % live.length] ?? 0,
      secret: CHAOS_SLACK.secret,
      text: `${c.name} restart`,
      user: CHAOS_SLACK.user,
      channel: c.channel,
      team: CHAOS_SLACK.team,
      triggerId: `load-${c.name}-${typed}`,
    }).catch(() => null);
    if (answer?.status === 200) taken.add(c.name);
  };
  await Promise.all(clusters.map((c, i) => type(c, i)));
  let clicks = 0;
  let reportedMs: number | null = null;
  const problems: string[] = [];
  for (;;) {
    sample();
    clicks += await click();
    for (const [i, c] of clusters.entries()) if (!taken.has(c.name)) await type(c, i);
    if (reportedMs === null && clusters.every((c) => threadsOf(c).some((p) => reportsOf(c, p).length > 0)))
      reportedMs = Date.now() - started;
    // Reported in the thread, and the parent's last update (coalesced, and the first to wait out a 429) delivered.
    const reported = clusters.every((c) =>
      threadsOf(c).some((p) => reportsOf(c, p).length > 0 && FINAL.test(p.text)),
    );
    if (reported) {
      const open = await withStore(async (s) => ({
        jobs: (await s.listJobs({ unfinishedOnly: true })).length,
        locks: (await Promise.all(clusters.map((c) => s.readLock(c.name)))).filter((l) => l !== null).length,
      })).catch(() => null);
      if (open !== null && open.jobs === 0 && open.locks === 0) break;
    }
    if (Date.now() - started > o.deadlineMs) {
      const missing = clusters.filter((c) => !threadsOf(c).some((p) => reportsOf(c, p).length > 0));
      const stale = clusters.filter((c) => !threadsOf(c).some((p) => FINAL.test(p.text)));
      problems.push(
        `the run did not end within ${o.deadlineMs} ms: no final report for ${missing.map((c) => c.name).join(", ") || "none"}; parent not updated to the result for ${stale.map((c) => c.name).join(", ") || "none"}`,
      );
      break;
    }
    await pause(250);
  }
  const wallMs = Date.now() - started;
  const last = sample();
  const redisCommands = (await withStore(async (s) => s.commands).catch(() => redisBefore)) - redisBefore;

  const outcomes = clusters.map((c): ClusterOutcome => {
    const parents = threadsOf(c);
    const reports = parents.flatMap((p) => reportsOf(c, p));
    const state = c.sim.cluster.state();
    return {
      cluster: c.name,
      threads: parents.length,
      results: reports.map((r) => FINAL.exec(r.text)?.[1] ?? "unknown"),
      settled: reports.flatMap((r) => stepRows(r)).filter((row) => row.status === "settled").length,
      restarts: Object.fromEntries(c.sim.workers.map((w) => [w.name, state.counters.restarts[w.name] ?? 0])),
      tasksNotRunning: state.tasks.filter((t) => t.state !== "RUNNING").map((t) => t.id),
    };
  });
  for (const out of outcomes) {
    if (out.threads !== 1) problems.push(`${out.cluster}: ${out.threads} threads, expected 1`);
    if (out.results.length !== 1 || out.results[0] !== "succeeded")
      problems.push(`${out.cluster}: final reports ${JSON.stringify(out.results)}, expected one "succeeded"`);
    for (const [worker, n] of Object.entries(out.restarts))
      if (n !== 1) problems.push(`${out.cluster}: ${worker} restarted ${n} times, expected once`);
    if (out.settled !== o.workers)
      problems.push(`${out.cluster}: the report lists ${out.settled} settled steps, expected ${o.workers}`);
    if (out.tasksNotRunning.length > 0)
      problems.push(`${out.cluster}: tasks not RUNNING at the end: ${out.tasksNotRunning.join(", ")}`);
  }
  for (const r of replicas.replicas) if (!r.up()) problems.push(`${r.id} exited during the run`);

  const calls = slack.calls().filter((c) => c.at >= started);
  const methods = [...new Set(calls.map((c) => c.method))].sort();
  const slackFigures = methods.map((method): MethodCalls => {
    const mine = calls.filter((c) => c.method === method);
    const perMinute = new Map<number, number>();
    for (const c of mine) {
      const minute = Math.floor((c.at - started) / 60_000);
      perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
    }
    return {
      method,
      calls: mine.length,
      limited: mine.filter((c) => c.status === 429).length,
      busiestMinute: Math.max(0, ...perMinute.values()),
    };
  });
  return {
    options: o,
    reportedMs,
    wallMs,
    outcomes,
    problems,
    replicas: replicas.replicas.map((r) => ({
      id: r.id,
      cpuMs: (last.get(r.id)?.cpuMs ?? 0) - (cpuBefore.get(r.id) ?? 0),
      peakRssBytes: peakRss.get(r.id) ?? 0,
    })),
    redisCommands,
    slack: slackFigures,
    clicks,
    commandsTyped: typed,
  };
}
