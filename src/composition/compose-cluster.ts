import * as fs from "node:fs";
import type { Logger } from "pino";
import type { ClusterConfig } from "../config/schema.js";
import { type ClusterReader, createHttpClusterReader } from "../connect/cluster-reader.js";
import { AppError, ErrorCode } from "../core/errors.js";
import { resolveRolloutSettings } from "../core/rollout/resolve-rollout-settings.js";
import type { RolloutSettings } from "../core/rollout/rollout-types.js";
import { workerIdOf } from "../core/snapshot.js";
import { createCommandRestarter } from "../restart/command-restarter.js";
import { inClusterKubernetesOptions } from "../restart/kubernetes-options.js";
import { createKubernetesRestarter } from "../restart/kubernetes-restarter.js";
import { createSimRestarter } from "../restart/sim-restarter.js";
import { createWebhookRestarter } from "../restart/webhook-restarter.js";
import type { RestartTarget, WorkerRestarter } from "../restart/worker-restarter.js";

const DEFAULT_DELAY_MS = 300_000;

/** Maps a cluster's configuration to the rollout engine's settings, every default filled in (`resolveRolloutSettings`). */
export function rolloutSettingsFor(
  cluster: ClusterConfig,
  overrides: { pace?: "safe" | "window" } = {},
): RolloutSettings {
  const delayMs = cluster.connect.scheduledRebalanceMaxDelayMs ?? DEFAULT_DELAY_MS;
  const byWorker = Object.fromEntries(
    cluster.workers
      .filter((w) => w.connectProtocol !== undefined)
      .map((w) => [w.name, w.connectProtocol ?? null]),
  );
  return resolveRolloutSettings({
    planPolicy: {
      connectProtocol: cluster.connect.protocol ?? null,
      connectProtocolByWorker: byWorker,
      scheduledRebalanceMaxDelayMs: cluster.connect.scheduledRebalanceMaxDelayMs ?? null,
      expectedRestartMs: cluster.restart.expectedMs,
      maxTasksPerWorker: cluster.maxTasksPerWorker ?? null,
      exactlyOnceSourceSupport: cluster.connect.exactlyOnceSourceSupport ?? null,
      pace: overrides.pace ?? cluster.pace.mode,
      windowMaxHeldShare: cluster.pace.windowMaxHeldShare,
      windowMarginFloorMs: cluster.pace.windowMarginFloorMs,
      sessionTimeoutMs: cluster.connect.sessionTimeoutMs,
      // What the gate really costs once the cluster is quiet: its quiet period, then identical polls.
      settleAllowanceMs:
        cluster.gate.quietPeriodMs + cluster.gate.consecutivePolls * cluster.gate.pollIntervalMs,
    },
    gatePolicy: {
      consecutivePolls: cluster.gate.consecutivePolls,
      quietPeriodMs: cluster.gate.quietPeriodMs,
      ...(cluster.gate.slowAfterMs === undefined ? {} : { expectedSettleMs: cluster.gate.slowAfterMs }),
      failAfterMs: cluster.gate.failAfterMs,
      allowPaused: cluster.gate.allowPaused,
    },
    pollIntervalMs: cluster.gate.pollIntervalMs,
    delayMs,
    sessionTimeoutMs: cluster.connect.sessionTimeoutMs,
    expectedRestartMs: cluster.restart.expectedMs,
    backTimeoutMs: Math.max(cluster.restart.expectedMs * 3, 60_000),
  });
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
}

function secret(env: ComposeOptions["env"], name: string, what: string): string {
  const value = env[name];
  if (value === undefined || value === "")
    throw new AppError(ErrorCode.ConfigInvalid, `${what}: environment variable ${name} is not set`);
  return value;
}

/** The Connect reader for a configured cluster. */
export function createReaderFor(o: ComposeOptions): ClusterReader {
  const { cluster } = o;
  const basic = cluster.auth?.basic;
  return createHttpClusterReader({
    cluster: o.name,
    workers: cluster.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl ?? null })),
    auth: basic
      ? { username: basic.username, password: secret(o.env, basic.passwordEnv, "Connect basic auth") }
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
  });
}

/** The restart executor for a configured cluster. */
export function createRestarterFor(o: ComposeOptions): WorkerRestarter {
  const ex = o.cluster.executor;
  switch (ex.kind) {
    case "sim":
      return createSimRestarter({
        controlUrl: ex.controlUrl,
        downMs: ex.downMs ?? 0,
        timeoutMs: ex.timeoutMs,
      });
    case "command":
      return createCommandRestarter({
        argv: ex.argv,
        timeoutMs: ex.timeoutMs,
        ...(Object.keys(ex.env).length > 0 ? { env: ex.env } : {}),
      });
    case "webhook":
      return createWebhookRestarter({
        url: ex.url,
        secret: secret(o.env, ex.secretEnv, "webhook executor"),
        timeoutMs: ex.timeoutMs,
      });
    case "kubernetes": {
      const auth =
        ex.apiUrl !== undefined
          ? {
              apiUrl: ex.apiUrl,
              token: secret(o.env, ex.tokenEnv ?? "", "kubernetes executor"),
              ...(ex.caFile === undefined ? {} : { caFile: ex.caFile }),
            }
          : (() => {
              const inCluster = inClusterKubernetesOptions(o.env as NodeJS.ProcessEnv, fs);
              return {
                apiUrl: inCluster.apiUrl,
                tokenFile: inCluster.tokenFile,
                caFile: ex.caFile ?? inCluster.caFile,
              };
            })();
      return createKubernetesRestarter({
        ...auth,
        namespace: ex.namespace,
        statefulSet: ex.statefulSet,
        container: ex.container,
        strategy: ex.strategy,
        timeoutMs: ex.timeoutMs,
        pollMs: 2_000,
        podReadyTimeoutMs: ex.podReadyTimeoutMs,
      });
    }
  }
}
