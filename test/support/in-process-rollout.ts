import { performance } from "node:perf_hooks";
import pino, { type Logger } from "pino";
import {
  createReaderFor,
  createRestarterFor,
  restartTargetsFor,
  rolloutSettingsFor,
} from "../../src/composition/compose-cluster.js";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { simRunnerClock } from "../../src/composition/sim-runner-clock.js";
import { type ClusterConfig, clusterSchema } from "../../src/config/schema.js";
import type { ClusterReader } from "../../src/connect/cluster-reader.js";
import type { RolloutTarget } from "../../src/core/plan/plan-types.js";
import type { Decision, RolloutEvent, RolloutState } from "../../src/core/rollout/rollout-types.js";
import { type RolloutSummary, summarizeRollout } from "../../src/core/rollout/summarize.js";
import type { JobStore } from "../../src/jobs/job-store.js";
import { createMemoryJobStore } from "../../src/jobs/memory-job-store.js";
import { createRolloutService } from "../../src/jobs/rollout-service.js";
import type { ApprovalSource, RunOutcome } from "../../src/jobs/runner.js";
import type { RunningSim } from "../../src/sim/start-sim.js";

export interface InProcessRolloutOptions {
  readonly sim: RunningSim;
  readonly cluster?: string;
  readonly target: RolloutTarget;
  readonly pace?: "safe" | "window";
  readonly delayMs: number;
  readonly expectedRestartMs: number;
  readonly pollIntervalMs?: number;
  /** Overrides of the cluster config (gate settings…), merged before validation. */
  readonly configOverrides?: Record<string, unknown>;
  /** Decisions for approval prompts by kind; default approve/continue everything. */
  readonly decide?: (kind: string) => Decision;
  readonly store?: JobStore;
  readonly logger?: Logger;
  readonly onEvent?: (event: RolloutEvent, state: RolloutState) => void;
}

export interface InProcessRolloutResult {
  readonly outcome: RunOutcome;
  readonly summary: RolloutSummary;
  readonly httpCalls: number;
  readonly polls: number;
  readonly cpuMs: number;
  readonly wallMs: number;
}

/**
 * Runs the real rollout engine (runner, reader over HTTP, sim executor over HTTP) against a simulator in the same
 * process, in the simulator's time, with an in-process store. Used by tests and the benchmark.
 */
export async function runInProcessRollout(o: InProcessRolloutOptions): Promise<InProcessRolloutResult> {
  const name = o.cluster ?? "sim";
  const logger = o.logger ?? pino({ level: "silent" });
  const clock = simRunnerClock(o.sim);
  const cluster: ClusterConfig = clusterSchema.parse({
    ...simClusterConfig({
      clusterName: name,
      workers: o.sim.workers,
      controlUrl: o.sim.controlUrl,
      delayMs: o.delayMs,
      restartMs: o.expectedRestartMs,
      ...(o.pollIntervalMs === undefined ? {} : { pollIntervalMs: o.pollIntervalMs }),
    }),
    ...(o.configOverrides ?? {}),
  });
  const store = o.store ?? createMemoryJobStore();
  let httpCalls = 0;
  const reader = createReaderFor({
    name,
    cluster,
    env: {},
    logger,
    now: clock.now,
    sleep: clock.sleep,
    onHttpAttempt: () => {
      httpCalls += 1;
    },
  });
  let polls = 0;
  // Reads counted; no probe, so the runner reads the whole cluster while a worker comes back.
  const countingReader: ClusterReader = {
    read: (signal?: AbortSignal) => {
      polls += 1;
      return reader.read(signal);
    },
    close: () => reader.close(),
  };
  const approvals: ApprovalSource = {
    wait: async (_job, approval) => {
      const wanted = o.decide?.(approval.kind) ?? approval.options[0] ?? "approve";
      return { decision: wanted, by: "policy", at: clock.now() };
    },
  };
  const service = createRolloutService({
    store,
    clock,
    logger,
    owner: "in-process",
    lockTtlMs: 60_000,
    depsFor: () => ({
      store,
      reader: countingReader,
      restarter: createRestarterFor({ name, cluster, env: {}, logger }),
      clock,
      logger,
      approvals,
      workers: restartTargetsFor(cluster),
      ...(o.onEvent === undefined ? {} : { onEvent: o.onEvent }),
    }),
  });
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const started = await service.start({
    cluster: name,
    target: o.target,
    image: null,
    requestedBy: "bench",
    settings: rolloutSettingsFor(cluster, o.pace === undefined ? {} : { pace: o.pace }),
  });
  if (started.kind !== "started") throw new Error(`cluster ${name} is locked by ${started.holder.owner}`);
  const outcome = await started.done;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    outcome,
    summary: summarizeRollout(outcome.state, clock.now()),
    httpCalls,
    polls,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - wallBefore,
  };
}
