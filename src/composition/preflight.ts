import type { Logger } from "pino";
import type { ClusterConfig } from "../config/schema.js";
import type { ClusterReader } from "../connect/cluster-reader.js";
import { isAppError } from "../core/errors.js";
import { type Env, missingSecret, unreadableFile } from "../restart/executor-environment.js";
import { executorPreflight } from "../restart/executors.js";
import type { WorkerRestarter } from "../restart/worker-restarter.js";
import { createReaderFor, createRestarterFor } from "./compose-cluster.js";

/**
 * Everything a rollout needs that can be checked before a job exists or a lock is taken: secrets in the environment,
 * files the config names, the executor's program, and that the cluster answers. A problem here is one line and
 * leaves nothing behind (no job record, no lock).
 */

export type PreflightResult =
  | { readonly kind: "ok"; readonly reader: ClusterReader; readonly restarter: WorkerRestarter }
  | { readonly kind: "error"; readonly problems: readonly string[] };

export interface PreflightOptions {
  readonly name: string;
  readonly cluster: ClusterConfig;
  readonly env: Env;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Also read the cluster once and refuse when no worker answers (run does; plan reads it anyway). */
  readonly checkReachable: boolean;
}

/** The problems found without any network call, all at once: Connect's secret and CA file, then the executor's. */
function localProblems(cluster: ClusterConfig, env: Env): string[] {
  const basic = cluster.auth?.basic;
  const caFile = cluster.tls?.caFile;
  return [
    basic === undefined ? null : missingSecret(env, basic.passwordEnv, "Connect basic auth"),
    caFile === undefined ? null : unreadableFile(caFile, "Connect TLS caFile"),
    ...executorPreflight(cluster.executor, env),
  ].filter((p) => p !== null);
}

export async function preflightCluster(o: PreflightOptions): Promise<PreflightResult> {
  const problems = localProblems(o.cluster, o.env);
  if (problems.length > 0) return { kind: "error", problems };
  let reader: ClusterReader;
  let restarter: WorkerRestarter;
  try {
    reader = createReaderFor(o);
  } catch (e) {
    if (!isAppError(e)) throw e;
    return { kind: "error", problems: [e.message] };
  }
  try {
    restarter = createRestarterFor(o);
  } catch (e) {
    await reader.close();
    if (!isAppError(e)) throw e;
    return { kind: "error", problems: [e.message] };
  }
  if (o.checkReachable) {
    const snapshot = await reader.read(o.signal).catch(async (e: unknown) => {
      await Promise.all([reader.close(), restarter.close()]);
      throw e;
    });
    if (!snapshot.workers.some((w) => w.reachable)) {
      await Promise.all([reader.close(), restarter.close()]);
      const first = snapshot.workers.find((w) => w.error !== null)?.error ?? "no answer";
      return {
        kind: "error",
        problems: [
          `no worker of ${o.name} answers (${snapshot.workers.length} tried; ${first.replace(/\.$/, "")})`,
        ],
      };
    }
  }
  return { kind: "ok", reader, restarter };
}
