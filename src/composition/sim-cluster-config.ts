import type { SimWorkerEndpoint } from "../sim/start-sim.js";

export interface SimConfigInput {
  readonly clusterName: string;
  readonly workers: readonly SimWorkerEndpoint[];
  readonly controlUrl: string;
  readonly delayMs: number;
  readonly restartMs: number;
  readonly pollIntervalMs?: number;
  readonly consecutivePolls?: number;
  readonly quietPeriodMs?: number;
  /** The gate's stall threshold (default: the configuration's, 60 s). */
  readonly stallAfterMs?: number;
  /** The canary soak after the first upgraded worker (default 0: a simulator's rollouts do not soak unless asked). */
  readonly canarySoakMs?: number;
}

/** How long a poll interval's counters are watched to tell flowing tasks from idle ones: three polls, 1 s at least. */
export function flowWindowFor(pollIntervalMs: number): number {
  return Math.max(1_000, 3 * pollIntervalMs);
}

/** A connect-roll cluster configuration (the object form of the YAML) for a running simulator. */
export function simClusterConfig(input: SimConfigInput): Record<string, unknown> {
  const pollIntervalMs =
    input.pollIntervalMs ?? Math.max(500, Math.min(5_000, Math.round(input.delayMs / 20)));
  return {
    workers: input.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl })),
    executor: { kind: "sim", controlUrl: input.controlUrl },
    connect: { scheduledRebalanceMaxDelayMs: input.delayMs },
    restart: { expectedMs: input.restartMs },
    gate: {
      pollIntervalMs,
      consecutivePolls: input.consecutivePolls ?? 3,
      quietPeriodMs: input.quietPeriodMs ?? 2_000,
      failAfterMs: 3_600_000,
      allowPaused: true,
      flowWindowMs: flowWindowFor(pollIntervalMs),
      ...(input.stallAfterMs === undefined ? {} : { stallAfterMs: input.stallAfterMs }),
    },
    canary: { soakMs: input.canarySoakMs ?? 0 },
  };
}
