import type { SimWorkerEndpoint } from "../sim/start-sim.js";
import { flowWindowFor } from "./sim-cluster-config.js";

export interface LabConfigInput {
  readonly workers: readonly SimWorkerEndpoint[];
  readonly controlUrl: string;
  readonly delayMs: number;
  readonly sessionTimeoutMs: number;
  /** Program and arguments that restart a worker; `--worker {worker} --version {version}` are appended. */
  readonly restartCommand: readonly string[];
  readonly expectedRestartMs?: number;
  readonly pollIntervalMs?: number;
  /** The canary soak after the first upgraded worker (default 0: the lab's rollouts do not soak unless asked). */
  readonly canarySoakMs?: number;
}

/**
 * A connect-roll cluster configuration (the object form of the YAML) for a running lab: the `command` executor
 * calling `connect-roll lab restart-worker`, the way a VM user's restart script would be called.
 */
export function labClusterConfig(input: LabConfigInput): Record<string, unknown> {
  const pollIntervalMs =
    input.pollIntervalMs ?? Math.max(500, Math.min(5_000, Math.round(input.delayMs / 20)));
  return {
    workers: input.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl })),
    versions: { accept: "^v?[34]\\.\\d+\\.\\d+$" },
    executor: {
      kind: "command",
      argv: [...input.restartCommand, "--worker", "{worker}", "--version", "{version}"],
      timeoutMs: 600_000,
    },
    connect: { scheduledRebalanceMaxDelayMs: input.delayMs, sessionTimeoutMs: input.sessionTimeoutMs },
    restart: { expectedMs: input.expectedRestartMs ?? 15_000 },
    gate: {
      pollIntervalMs,
      consecutivePolls: 3,
      quietPeriodMs: 3_000,
      failAfterMs: 3_600_000,
      allowPaused: true,
      flowWindowMs: flowWindowFor(pollIntervalMs),
    },
    canary: { soakMs: input.canarySoakMs ?? 0 },
  };
}

/**
 * The command that restarts a lab worker from this checkout (`node --import tsx src/cli.ts lab restart-worker`), for
 * tests and the benchmark that run connect-roll in process; `--worker` and `--version` are appended by the config.
 */
export function checkoutRestartCommand(controlUrl: string, cwd: string = process.cwd()): string[] {
  return [
    process.execPath,
    "--import",
    "tsx",
    `${cwd}/src/cli.ts`,
    "lab",
    "restart-worker",
    "--control",
    controlUrl,
  ];
}
