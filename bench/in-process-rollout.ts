import { performance } from "node:perf_hooks";
import pino, { type Logger } from "pino";
import { createReaderFor, rolloutSettingsFor } from "../src/composition/compose-cluster.js";
import { createRolloutEngine } from "../src/composition/rollout-engine.js";
import { simClusterConfig } from "../src/composition/sim-cluster-config.js";
import { simRunnerClock } from "../src/composition/sim-runner-clock.js";
import { type ClusterConfig, clusterSchema } from "../src/config/schema.js";
import type { ClusterReader } from "../src/connect/cluster-reader.js";
import type { RolloutPace, RolloutTarget } from "../src/core/plan/plan-types.js";
import type { Decision } from "../src/core/rollout/approval-types.js";
import type { RolloutEvent } from "../src/core/rollout/rollout-io.js";
import type { RolloutState } from "../src/core/rollout/rollout-state.js";
import { type RolloutSummary, summarizeRollout } from "../src/core/rollout/summarize.js";
import { createMemoryJobStore } from "../src/jobs/memory/memory-job-store.js";
import type { ApprovalSource, RunOutcome } from "../src/jobs/runner/runner-deps.js";
import type { JobStore } from "../src/jobs/store/job-store.js";
import type { RunningSim } from "../src/sim/start-sim.js";

/**
 * The real rollout engine (runner, HTTP reader, sim executor over HTTP, in-process store) against a simulator started
 * in the same process, in the simulator's time. The benchmark (`runBenchRollout`: the reader's single-worker probe
 * on, every prompt approved) and the tests (`test/support/in-process-rollout.ts`) share it.
 */
export interface InProcessRolloutOptions {
  readonly sim: RunningSim;
  readonly cluster?: string;
  readonly target: RolloutTarget;
  readonly pace?: RolloutPace;
  readonly delayMs: number;
  readonly expectedRestartMs: number;
  readonly pollIntervalMs?: number;
  /** Overrides of the cluster config (gate settings…), merged before validation. */
  readonly configOverrides?: Record<string, unknown>;
  /** Decisions for approval prompts by kind; default: each prompt's first ("go") option. */
  readonly decide?: (kind: string) => Decision;
  readonly store?: JobStore;
  /** The lease of the cluster lock (renewed every third of it, in real time). Default 60 s. */
  readonly lockTtlMs?: number;
  readonly logger?: Logger;
  readonly onEvent?: (event: RolloutEvent, state: RolloutState) => void;
  /** Keep the reader's single-worker probe (the product's reader); off, the runner polls the whole cluster. */
  readonly probe?: boolean;
}

export interface InProcessRolloutResult {
  readonly outcome: RunOutcome;
  readonly summary: RolloutSummary;
  /** HTTP attempts of the reader, retries included. */
  readonly httpCalls: number;
  /** Reads of the whole cluster. */
  readonly polls: number;
  /** Probes of one worker. */
  readonly probes: number;
  readonly cpuMs: number;
  readonly wallMs: number;
}

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
  const counting = countingReader(reader, o.probe === true);
  const approvals: ApprovalSource = {
    wait: async (_job, approval) => {
      const wanted = o.decide?.(approval.kind) ?? approval.options[0] ?? "approve";
      return { decision: wanted, by: "policy", at: clock.now() };
    },
  };
  const service = createRolloutEngine({
    store,
    clock,
    logger,
    owner: "in-process",
    lockTtlMs: o.lockTtlMs ?? 60_000,
    env: {},
    clusterOf: () => cluster,
    approvals,
    observerOf: () => o.onEvent,
    prebuilt: () => ({ reader: counting.reader, restarter: null }),
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
    polls: counting.polls,
    probes: counting.probes,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - wallBefore,
  };
}

export interface BenchRolloutOptions {
  readonly sim: RunningSim;
  readonly target: RolloutTarget;
  readonly pace: RolloutPace;
  readonly delayMs: number;
  readonly expectedRestartMs: number;
  readonly pollIntervalMs: number;
}

/** The benchmark's connect-roll runner: the product's reader with its probe, every prompt approved. */
export function runBenchRollout(o: BenchRolloutOptions): Promise<InProcessRolloutResult> {
  return runInProcessRollout({ ...o, probe: true });
}

/** The reader with its whole-cluster reads and single-worker probes counted apart (the bot cost the benchmark shows). */
function countingReader(
  reader: ClusterReader,
  withProbe: boolean,
): { reader: ClusterReader; polls: number; probes: number } {
  const counts = { polls: 0, probes: 0 };
  const probe = reader.probe;
  const counted: ClusterReader = {
    read: (signal?: AbortSignal) => {
      counts.polls += 1;
      return reader.read(signal);
    },
    close: () => reader.close(),
    ...(withProbe && probe !== undefined
      ? {
          probe: (worker: string, options: { readonly metrics: boolean }, signal?: AbortSignal) => {
            counts.probes += 1;
            return probe.call(reader, worker, options, signal);
          },
        }
      : {}),
  };
  return {
    reader: counted,
    get polls() {
      return counts.polls;
    },
    get probes() {
      return counts.probes;
    },
  };
}
