import * as fs from "node:fs";
import type { Logger } from "pino";
import type { ClusterConfig } from "../config/schema.js";
import type { ClusterReader } from "../connect/cluster-reader.js";
import { createHttpClusterReader } from "../connect/http-cluster-reader.js";
import type { RolloutPace } from "../core/plan/plan-types.js";
import { resolvePlanPolicy } from "../core/plan/resolve-plan-policy.js";
import type { RolloutSettings } from "../core/rollout/rollout-state.js";
import { resolveGatePolicy } from "../core/settle/resolve-gate-policy.js";
import { workerIdOf } from "../core/snapshot.js";
import { requireSecret } from "../restart/executor-environment.js";
import { createRestarter } from "../restart/executors.js";
import type { RestartTarget, WorkerRestarter } from "../restart/worker-restarter.js";

const DEFAULT_DELAY_MS = 300_000;

/**
 * Maps a cluster's configuration to the rollout engine's settings, every default filled in (`resolvePlanPolicy`,
 * `resolveGatePolicy`): settings enter core resolved.
 */
export function rolloutSettingsFor(
  cluster: ClusterConfig,
  overrides: { pace?: RolloutPace } = {},
): RolloutSettings {
  const delayMs = cluster.connect.scheduledRebalanceMaxDelayMs ?? DEFAULT_DELAY_MS;
  const byWorker = Object.fromEntries(
    cluster.workers
      .filter((w) => w.connectProtocol !== undefined)
      .map((w) => [w.name, w.connectProtocol ?? null]),
  );
  return {
    planPolicy: resolvePlanPolicy({
      connectProtocol: cluster.connect.protocol ?? null,
      connectProtocolByWorker: byWorker,
      scheduledRebalanceMaxDelayMs: cluster.connect.scheduledRebalanceMaxDelayMs ?? null,
      expectedRestartMs: cluster.restart.expectedMs,
      maxTasksPerWorker: cluster.maxTasksPerWorker ?? null,
      exactlyOnceSourceSupport: cluster.connect.exactlyOnceSourceSupport ?? null,
      pace: overrides.pace ?? cluster.pace.mode,
      windowMaxHeldShare: cluster.pace.windowMaxHeldShare,
      windowMarginFloorMs: cluster.pace.windowMarginFloorMs,
      windowProbeIntervalMs: cluster.pace.windowProbeIntervalMs,
      leaderClosesLastWindow: cluster.pace.leaderClosesLastWindow,
      restartJitter: cluster.restart.jitter,
      sessionTimeoutMs: cluster.connect.sessionTimeoutMs,
      // What the gate really costs once the cluster is quiet: its quiet period, then identical polls.
      settleAllowanceMs:
        cluster.gate.quietPeriodMs + cluster.gate.consecutivePolls * cluster.gate.pollIntervalMs,
    }),
    gatePolicy: resolveGatePolicy({
      consecutivePolls: cluster.gate.consecutivePolls,
      quietPeriodMs: cluster.gate.quietPeriodMs,
      ...(cluster.gate.slowAfterMs === undefined ? {} : { expectedSettleMs: cluster.gate.slowAfterMs }),
      failAfterMs: cluster.gate.failAfterMs,
      allowPaused: cluster.gate.allowPaused,
      stallAfterMs: cluster.gate.stallAfterMs,
      flowWindowMs: cluster.gate.flowWindowMs,
    }),
    pollIntervalMs: cluster.gate.pollIntervalMs,
    delayMs,
    sessionTimeoutMs: cluster.connect.sessionTimeoutMs,
    expectedRestartMs: cluster.restart.expectedMs,
    workerReturnMs: cluster.gate.workerReturnMs ?? null,
    canary: {
      soakMs: cluster.canary.soakMs,
      onRestart: cluster.canary.onRestart,
      minRateRatio: cluster.canary.minRateRatio,
      maxNewFailures: cluster.canary.maxNewFailures,
      maxGcRatio: cluster.canary.maxGcRatio,
      minGcShare: cluster.canary.minGcShare,
      maxHeapShare: cluster.canary.maxHeapShare,
    },
  };
}

/** What the executor needs to know of each worker, by name. */
export function restartTargetsFor(cluster: ClusterConfig): Map<string, RestartTarget> {
  return new Map(
    cluster.workers.map((w) => [
      w.name,
      {
        name: w.name,
        url: w.url,
        host: new URL(w.url).hostname,
        workerId: workerIdOf(w.url),
        pod: w.pod ?? null,
      },
    ]),
  );
}

export interface ComposeOptions {
  readonly name: string;
  readonly cluster: ClusterConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly now?: () => number;
  /** For the simulator in virtual time: its clock's sleep. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called before every HTTP attempt of the reader (the benchmark counts them). */
  readonly onHttpAttempt?: () => void;
}

/** The Connect reader for a configured cluster. */
export function createReaderFor(o: ComposeOptions): ClusterReader {
  const { cluster } = o;
  const basic = cluster.auth?.basic;
  return createHttpClusterReader({
    cluster: o.name,
    workers: cluster.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl ?? null })),
    auth: basic
      ? { username: basic.username, password: requireSecret(o.env, basic.passwordEnv, "Connect basic auth") }
      : null,
    tls: cluster.tls
      ? {
          ...(cluster.tls.caFile === undefined ? {} : { ca: fs.readFileSync(cluster.tls.caFile, "utf8") }),
          insecureSkipVerify: cluster.tls.insecureSkipVerify,
        }
      : null,
    timeoutMs: cluster.requestTimeoutMs,
    retries: 2,
    now: o.now ?? Date.now,
    logger: o.logger,
    declared: { exactlyOnceSourceSupport: cluster.connect.exactlyOnceSourceSupport ?? null },
    ...(o.sleep === undefined ? {} : { sleep: o.sleep }),
    ...(o.onHttpAttempt === undefined ? {} : { onHttpAttempt: o.onHttpAttempt }),
  });
}

/** The restart executor for a configured cluster (the factory of its kind in src/restart/executors.ts). */
export function createRestarterFor(o: ComposeOptions): WorkerRestarter {
  return createRestarter(o.cluster.executor, o.env);
}
