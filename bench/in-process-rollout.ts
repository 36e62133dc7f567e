import pino from "pino";
import { AUDIT_WORDING } from "../src/chat/views/rollout-wording.js";
import {
  createReaderFor,
  createRestarterFor,
  restartTargetsFor,
  rolloutSettingsFor,
} from "../src/composition/compose-cluster.js";
import { simClusterConfig } from "../src/composition/sim-cluster-config.js";
import { simRunnerClock } from "../src/composition/sim-runner-clock.js";
import { type ClusterConfig, clusterSchema } from "../src/config/schema.js";
import type { ClusterReader } from "../src/connect/cluster-reader.js";
import type { RolloutTarget } from "../src/core/plan/plan-types.js";
import { summarizeRollout } from "../src/core/rollout/summarize.js";
import { createMemoryJobStore } from "../src/jobs/memory-job-store.js";
import { createRolloutService } from "../src/jobs/rollout-service.js";
import type { ApprovalSource } from "../src/jobs/runner.js";
import type { RunningSim } from "../src/sim/start-sim.js";

/**
 * The benchmark's connect-roll runner: the real engine (runner, HTTP reader with its single-worker probe, sim
 * executor over HTTP, in-process store) against a started simulator in its virtual time, every prompt approved.
 * Like `runInProcessRollout` of test/support, but it keeps the reader's probe and counts whole-cluster reads and probes
 * apart, the bot cost the benchmark reports.
 */
export interface BenchRolloutOptions {
  readonly sim: RunningSim;
  readonly target: RolloutTarget;
  readonly pace: "safe" | "window";
  readonly delayMs: number;
  readonly expectedRestartMs: number;
  readonly pollIntervalMs: number;
}

export interface BenchRolloutResult {
  readonly summary: ReturnType<typeof summarizeRollout>;
  readonly httpCalls: number;
  /** Reads of the whole cluster. */
  readonly polls: number;
  /** Probes of one worker. */
  readonly probes: number;
  readonly cpuMs: number;
}

export async function runBenchRollout(o: BenchRolloutOptions): Promise<BenchRolloutResult> {
  const name = "sim";
  const logger = pino({ level: "silent" });
  const clock = simRunnerClock(o.sim);
  const cluster: ClusterConfig = clusterSchema.parse(
    simClusterConfig({
      clusterName: name,
      workers: o.sim.workers,
      controlUrl: o.sim.controlUrl,
      delayMs: o.delayMs,
      restartMs: o.expectedRestartMs,
      pollIntervalMs: o.pollIntervalMs,
    }),
  );
  const store = createMemoryJobStore();
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
  const counting = countingReader(reader);
  const approvals: ApprovalSource = {
    wait: async (_job, approval) => ({
      decision: approval.options[0] ?? "approve",
      by: "policy",
      at: clock.now(),
    }),
  };
  const service = createRolloutService({
    store,
    clock,
    logger,
    owner: "bench",
    lockTtlMs: 60_000,
    depsFor: () => ({
      store,
      reader: counting.reader,
      restarter: createRestarterFor({ name, cluster, env: {}, logger }),
      clock,
      logger,
      approvals,
      workers: restartTargetsFor(cluster),
      wording: AUDIT_WORDING,
    }),
  });
  const cpuBefore = process.cpuUsage();
  const started = await service.start({
    cluster: name,
    target: o.target,
    image: null,
    requestedBy: "bench",
    settings: rolloutSettingsFor(cluster, { pace: o.pace }),
  });
  if (started.kind !== "started") throw new Error(`cluster ${name} is locked by ${started.holder.owner}`);
  const outcome = await started.done;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    summary: summarizeRollout(outcome.state, clock.now()),
    httpCalls,
    polls: counting.polls,
    probes: counting.probes,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

/** The reader with its whole-cluster reads and single-worker probes counted apart (the bot cost the benchmark shows). */
function countingReader(reader: ClusterReader): { reader: ClusterReader; polls: number; probes: number } {
  const counts = {
    polls: 0,
    probes: 0,
    reader: {
      read: (signal?: AbortSignal) => {
        counts.polls += 1;
        return reader.read(signal);
      },
      probe: (worker: string, options: { readonly metrics: boolean }, signal?: AbortSignal) => {
        counts.probes += 1;
        if (!reader.probe) throw new Error("the HTTP reader has no probe");
        return reader.probe(worker, options, signal);
      },
      close: () => reader.close(),
    } satisfies ClusterReader,
  };
  return counts;
}
