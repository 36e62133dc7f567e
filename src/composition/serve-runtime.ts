import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { createSlackApp, type Readiness, type SlackApp, type SlackAppSettings } from "../chat/app.js";
import { createAuthorizer } from "../chat/authorize.js";
import { createChartPoster } from "../chat/chart-poster.js";
import type { Notifier } from "../chat/notifier.js";
import { createOwedReports } from "../chat/owed-reports.js";
import { createSlackApprovalSource } from "../chat/slack-approval-source.js";
import { createSlackFleets } from "../chat/slack-fleets.js";
import type { SlackWebApi } from "../chat/slack-web-api.js";
import { createThreadNotifier } from "../chat/thread-notifier.js";
import { createThreadReporter } from "../chat/thread-reporter.js";
import type { ChatUseCaseDeps } from "../chat/use-case-deps.js";
import type { Config } from "../config/schema.js";
import type { Clock } from "../core/clock.js";
import { AppError, ErrorCode } from "../core/errors.js";
import type { RolloutEvent } from "../core/rollout/rollout-io.js";
import type { RolloutState } from "../core/rollout/rollout-state.js";
import type { RolloutService } from "../jobs/runner/rollout-service.js";
import type { JobRecord } from "../jobs/store/job-record.js";
import type { JobStore } from "../jobs/store/job-store.js";
import { createReaderFor, rolloutSettingsFor } from "./compose-cluster.js";
import { soakStage } from "./fleet-soak.js";
import { previewPlan } from "./preview-plan.js";
import { createRolloutEngine } from "./rollout-engine.js";

export interface ServeRuntimeOptions {
  readonly config: Config;
  readonly store: JobStore;
  /** The Web API the notifier, the user-group lookups and the ephemeral answers use. */
  readonly api: SlackWebApi;
  /** The Bolt app's transport, bot token, client and answer settings, passed to it as they are. */
  readonly slack: SlackAppSettings;
  readonly logger: Logger;
  /** This replica's id (lock holder, "resumed by"). */
  readonly replicaId: string;
  readonly lockTtlMs: number;
  /** Wall clock: Slack pacing, change windows, decisions. */
  readonly wallClock: Clock;
  /** The rollout engine's clock; default the wall clock (tests: the simulator's). */
  readonly runnerClock?: Clock;
  /** Environment for executor and Connect secrets. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly notifier?: {
    postIntervalMs?: number;
    minUpdateIntervalMs?: number;
    updateSpacingMs?: number;
    baseBackoffMs?: number;
  };
  readonly approvalPollMs?: number;
  /** How often a fleet run reads its clusters' jobs and its stage answers; default 1000. */
  readonly fleetPollMs?: number;
  /** How often orphaned rollouts, and final reports no replica posted, are looked for. Default 15 s. */
  readonly orphanSweepMs?: number;
  /**
   * The final reports the sweep posts for finished jobs whose replica died before posting them: how long after the
   * finish a report counts as owed (default 60 s, runner's clock), how old a job may be (default 24 h since it
   * started) and how long a replica's claim on a report keeps the others off it (default 5 min).
   */
  readonly owedReports?: { graceMs?: number; maxAgeMs?: number; claimTtlMs?: number };
  readonly groupCacheTtlMs?: number;
}

export interface ServeRuntime {
  readonly slack: SlackApp;
  /** What the Slack listeners pass to the use-cases. */
  readonly usecases: ChatUseCaseDeps;
  readonly service: RolloutService;
  readonly notifier: Notifier;
  start(port: number): Promise<{ port: number }>;
  /**
   * What the periodic sweep does, now: takes over orphaned rollouts and claims and posts the final reports no replica
   * posted. Resolves with the jobs taken over and those whose report this replica claimed (its post goes on after).
   */
  sweep(): Promise<SweepResult>;
  /** Graceful: stop taking commands, let runners checkpoint and release their locks, flush Slack, close the store. */
  stop(): Promise<void>;
}

export interface SweepResult {
  /** The rollouts (`cr-…`) and fleet runs (`fl-…`) taken over. */
  readonly resumed: readonly string[];
  readonly reports: readonly string[];
}

/** Wires the bot: store, rollout service (runner + thread reporter + Slack approvals), the use-cases' deps, Bolt app. */
export function createServeRuntime(o: ServeRuntimeOptions): ServeRuntime {
  const log = o.logger.child({ component: "serve" });
  const runnerClock = o.runnerClock ?? o.wallClock;
  const notifier = createThreadNotifier({
    api: o.api,
    clock: o.wallClock,
    logger: o.logger,
    ...(o.notifier ?? {}),
  });
  const approvals = createSlackApprovalSource({
    store: o.store,
    ...(o.approvalPollMs === undefined ? {} : { pollMs: o.approvalPollMs }),
  });
  const jobChannels = new Map<string, string>();
  const chart = createChartPoster({ api: o.api, logger: o.logger });

  /** A job's events go to its Slack thread, when it has one, and always refresh the Home tab. */
  function observerOf(job: JobRecord): (event: RolloutEvent, state: RolloutState) => void {
    const channel = job.thread?.channel ?? jobChannels.get(job.id);
    if (channel === undefined) return () => slack.homeTab.refresh();
    return withHomeRefresh(
      createThreadReporter({
        notifier,
        jobId: job.id,
        channel,
        parentTs: job.thread?.ts ?? null,
        now: runnerClock.now,
        replicaId: o.replicaId,
        logger: o.logger,
        messages: job.messages ?? {},
        chart,
        remember: (key, ts) =>
          void o.store
            .recordSlackMessages(job.id, { messages: { [key]: ts } })
            .catch((err: unknown) => log.warn({ err, jobId: job.id }, "message ts not recorded")),
      }),
    );
  }

  const service = createRolloutEngine({
    store: o.store,
    clock: runnerClock,
    logger: o.logger,
    owner: o.replicaId,
    lockTtlMs: o.lockTtlMs,
    env: o.env,
    clusterOf: (job) => {
      const cluster = o.config.clusters[job.cluster];
      if (cluster === undefined)
        throw new AppError(
          ErrorCode.ClusterUnknown,
          `cluster ${job.cluster} is not in this replica's configuration`,
        );
      return cluster;
    },
    approvals,
    observerOf,
    onFinished: (job) => {
      jobChannels.delete(job.id);
      slack.homeTab.refresh();
      // Once the report and the last updates are out, forget the job's messages (bounded memory), unless this replica
      // runs the job again meanwhile (it took back a rollout whose lease it lost): that run's thread needs them.
      void notifier.flush(10_000).then(() => {
        if (!service.running().includes(job.id)) notifier.forget(`${job.id}:`);
      });
    },
  });

  /** Every event of a rollout also refreshes the Home tab (debounced there). */
  const withHomeRefresh =
    (report: (event: RolloutEvent, state: RolloutState) => void) =>
    (event: RolloutEvent, state: RolloutState) => {
      report(event, state);
      slack.homeTab.refresh();
    };

  const authorizer = createAuthorizer({
    lookupUserGroup: (groupId) => o.api.usergroupsUsersList(groupId),
    cacheTtlMs: o.groupCacheTtlMs ?? 5 * 60_000,
    now: o.wallClock.now,
  });

  const usecases: ChatUseCaseDeps = {
    config: o.config,
    store: o.store,
    service,
    authorizer,
    now: o.wallClock.now,
    logger: o.logger.child({ component: "usecases" }),
    settingsFor: (cluster, pace) => rolloutSettingsFor(cluster, pace === undefined ? {} : { pace }),
    async planFor(name, cluster, target, pace) {
      const reader = createReaderFor({ name, cluster, env: o.env, logger: o.logger });
      try {
        return await previewPlan(
          reader,
          target,
          rolloutSettingsFor(cluster, pace === undefined ? {} : { pace }),
        );
      } finally {
        await reader.close();
      }
    },
  };

  async function ready(): Promise<Readiness> {
    try {
      await o.store.ping();
      return { ready: true };
    } catch {
      return { ready: false, reason: "store unreachable" };
    }
  }

  const fleets = createSlackFleets({
    config: o.config,
    store: o.store,
    service,
    notifier,
    logger: o.logger,
    owner: o.replicaId,
    lockTtlMs: o.lockTtlMs,
    settingsFor: usecases.settingsFor,
    soak: (fleet, stage, signal) =>
      soakStage({ config: o.config, fleet, stage, env: o.env, logger: o.logger, signal }),
    newJobId: () => `cr-${randomUUID().slice(0, 8)}`,
    parentWaitMs: o.slack.parentWaitMs ?? 60_000,
    ...(o.fleetPollMs === undefined ? {} : { pollMs: o.fleetPollMs }),
    onChange: () => slack.homeTab.refresh(),
  });

  const slack = createSlackApp({
    ...o.slack,
    logger: o.logger,
    usecases,
    notifier,
    api: o.api,
    ready,
    onJobChannel: (jobId, channel) => jobChannels.set(jobId, channel),
    fleets,
  });

  const owedReports = createOwedReports({
    store: o.store,
    notifier,
    logger: o.logger,
    replicaId: o.replicaId,
    now: runnerClock.now,
    graceMs: o.owedReports?.graceMs ?? 60_000,
    maxAgeMs: o.owedReports?.maxAgeMs ?? 24 * 60 * 60_000,
    claimTtlMs: o.owedReports?.claimTtlMs ?? 5 * 60_000,
    chart,
  });

  let sweeper: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  /** The sweep going on now, waited for by `stop` (it may be taking a rollout or a fleet over). */
  let sweeping: Promise<SweepResult> | undefined;
  const sweep = (): Promise<SweepResult> => {
    const current = sweepOnce().finally(() => {
      if (sweeping === current) sweeping = undefined;
    });
    sweeping = current;
    return current;
  };
  const sweepOnce = async (): Promise<SweepResult> => {
    let resumed: string[] = [];
    let reports: string[] = [];
    try {
      resumed = (await service.resumeOrphans()).map((t) => t.job.id);
      if (resumed.length > 0) log.warn({ count: resumed.length }, "orphaned rollouts resumed");
    } catch (err) {
      log.error({ err }, "orphan sweep failed");
    }
    try {
      const taken = await fleets.sweep();
      resumed = [...resumed, ...taken];
    } catch (err) {
      log.error({ err }, "fleet takeover sweep failed");
    }
    try {
      // Not while stopping: the notifier and the store are closing.
      if (stopping === undefined) reports = await owedReports.sweep();
    } catch (err) {
      log.error({ err }, "owed final reports sweep failed");
    }
    return { resumed, reports };
  };

  return {
    slack,
    usecases,
    service,
    notifier,
    sweep,
    async start(port) {
      const started = await slack.start(port);
      await sweep();
      sweeper = setInterval(() => void sweep(), o.orphanSweepMs ?? 15_000);
      sweeper.unref();
      log.info(
        { port: started.port, replicaId: o.replicaId, transport: o.slack.transport.kind },
        "connect-roll bot started",
      );
      return started;
    },
    stop() {
      stopping ??= (async () => {
        if (sweeper !== undefined) clearInterval(sweeper);
        const steps: [string, () => Promise<unknown>][] = [
          ["slack app", () => slack.stop()],
          ["sweep in progress", () => sweeping ?? Promise.resolve()],
          // Before the rollouts: a fleet stopping here is left running for another replica, not failed.
          ["fleet runs", () => fleets.close()],
          ["rollout runs", () => service.close()],
          ["thread notifier flush", () => notifier.flush(5_000)],
          ["thread notifier", () => notifier.close()],
          ["job store", () => o.store.close()],
        ];
        for (const [what, step] of steps) {
          await step().catch((err: unknown) => log.warn({ err, what }, "shutdown step failed"));
        }
        log.info("connect-roll bot stopped");
      })();
      return stopping;
    },
  };
}
