import type { Logger } from "pino";
import { argumentForReported, resolveTarget } from "../config/resolve-target.js";
import type { ClusterConfig } from "../config/schema.js";
import type { ClusterReader } from "../connect/cluster-reader.js";
import type { Clock } from "../core/clock.js";
import {
  createRolloutService,
  type RolloutService,
  type RolloutServiceOptions,
} from "../jobs/runner/rollout-service.js";
import type { ApprovalSource, RunnerDeps } from "../jobs/runner/runner-deps.js";
import type { JobRecord } from "../jobs/store/job-record.js";
import type { RolloutServiceStore } from "../jobs/store/store-roles.js";
import type { Env } from "../restart/executor-environment.js";
import type { WorkerRestarter } from "../restart/worker-restarter.js";
import { AUDIT_WORDING } from "../wording/reason-text.js";
import { createReaderFor, createRestarterFor, restartTargetsFor } from "./compose-cluster.js";

/** A job's adapters built before it started (the preflight's, an instrumented reader); null: build it here. */
export interface PrebuiltAdapters {
  readonly reader: ClusterReader | null;
  readonly restarter: WorkerRestarter | null;
}

export interface RolloutEngineOptions {
  readonly store: RolloutServiceStore;
  /** The rollout's clock: the runner's waits and the reader's (the simulator's in virtual time). */
  readonly clock: Clock;
  readonly logger: Logger;
  /** This process's id, shown as the lock holder. */
  readonly owner: string;
  readonly lockTtlMs: number;
  /** Environment for executor and Connect secrets. */
  readonly env: Env;
  /** The configuration of a job's cluster. @throws AppError when this process does not know it. */
  readonly clusterOf: (job: JobRecord) => ClusterConfig;
  readonly approvals: ApprovalSource;
  /** Who watches a job's events (the Slack thread reporter, `run`'s lines); nobody when it returns undefined. */
  readonly observerOf?: (job: JobRecord) => RunnerDeps["onEvent"];
  readonly prebuilt?: (job: JobRecord) => PrebuiltAdapters;
  readonly onFinished?: RolloutServiceOptions["onFinished"];
  /** `run --timeout`: every job this engine runs stops at the first safe point after this (`RunnerDeps.timeLimit`). */
  readonly timeLimit?: RunnerDeps["timeLimit"];
}

/**
 * The rollout engine, wired once for the bot, `connect-roll run` and the benchmark: the rollout service with, for
 * each job, its cluster's reader and executor (from its configuration, unless prebuilt), its workers' addresses, the
 * approval source, the audit trail's words and the job's observer.
 */
export function createRolloutEngine(o: RolloutEngineOptions): RolloutService {
  return createRolloutService({
    store: o.store,
    clock: o.clock,
    logger: o.logger,
    owner: o.owner,
    lockTtlMs: o.lockTtlMs,
    depsFor: (job) => {
      const cluster = o.clusterOf(job);
      const compose = { name: job.cluster, cluster, env: o.env, logger: o.logger };
      const prebuilt = o.prebuilt?.(job);
      const reader =
        prebuilt?.reader ?? createReaderFor({ ...compose, now: o.clock.now, sleep: o.clock.sleep });
      const restarter = prebuilt?.restarter ?? createRestarterFor(compose);
      const onEvent = o.observerOf?.(job);
      return {
        store: o.store,
        reader,
        restarter,
        clock: o.clock,
        logger: o.logger,
        approvals: o.approvals,
        workers: restartTargetsFor(cluster),
        imageFor: (version: string) => {
          const resolved = resolveTarget(cluster, argumentForReported(cluster, version));
          return resolved.kind === "ok" ? resolved.target.image : null;
        },
        wording: AUDIT_WORDING,
        ...(onEvent === undefined ? {} : { onEvent }),
        ...(o.timeLimit === undefined ? {} : { timeLimit: o.timeLimit }),
      };
    },
    ...(o.onFinished === undefined ? {} : { onFinished: o.onFinished }),
  });
}
