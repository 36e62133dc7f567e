import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import { simClusterConfig } from "../../src/composition/sim-cluster-config.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";
import { captureIo } from "../support/capture-io.js";
import { FAST_REAL_TIME_SIM } from "../support/fast-sim.js";
import { jsonLines } from "../support/json-lines.js";
import { waitFor } from "../support/wait-for.js";

const program = { version: "0.0.0", commands: [runCommand] };

export interface FaultCluster {
  readonly sim: RunningSim;
  readonly config: string;
  /** Restarts per worker so far, in worker order. */
  restarts(): number[];
  /** Total restarts so far. */
  restartCount(): number;
}

/** A real-time simulated cluster (4 workers, short delay) and a config file for it. */
export async function startFaultCluster(
  name: string,
  extra: Record<string, unknown> = {},
): Promise<FaultCluster> {
  const sim = await startSim({
    ...FAST_REAL_TIME_SIM,
    workers: 4,
    connectors: 4,
    tasksPerConnector: 2,
    seed: 11,
  });
  const config = join(tmpdir(), `connect-roll-fault-${name}-${process.pid}.yml`);
  const cluster = simClusterConfig({
    clusterName: "sim",
    workers: sim.workers,
    controlUrl: sim.controlUrl,
    delayMs: 600,
    restartMs: 200,
    pollIntervalMs: 150,
    quietPeriodMs: 200,
    consecutivePolls: 2,
  });
  await writeFile(config, stringify({ clusters: { sim: { ...cluster, ...extra } } }));
  await waitFor("every simulated task RUNNING", () => {
    const tasks = sim.cluster.state().tasks;
    return tasks.length > 0 && tasks.every((t) => t.state === "RUNNING");
  });
  const restarts = () => {
    const counts = sim.cluster.state().counters.restarts;
    return sim.workers.map((w) => counts[w.name] ?? 0);
  };
  return { sim, config, restarts, restartCount: () => restarts().reduce((a, b) => a + b, 0) };
}

export interface RunHandle {
  readonly done: Promise<number>;
  out(): string;
  err(): string;
  /** Lines of stdout parsed as JSON (`--json`). */
  events(): { kind: string; [key: string]: unknown }[];
  /** Ctrl-C. */
  interrupt(): void;
}

/** `connect-roll run` in this process, with its own environment and an interruptible signal. */
export function startRun(
  config: string,
  target: string,
  env: Record<string, string>,
  extraArgs: readonly string[] = ["--yes", "--json"],
): RunHandle {
  const controller = new AbortController();
  const io = { ...captureIo({ LOG_LEVEL: "silent", ...env }), signal: controller.signal };
  const done = runCli(program, ["run", "--config", config, "sim", target, ...extraArgs], io);
  return {
    done,
    out: io.out,
    err: io.err,
    events: () => jsonLines<{ kind: string }>(io.out()),
    interrupt: () => controller.abort(),
  };
}

/** The last summary line of a run's JSON output. */
export function summaryOf(run: RunHandle): Record<string, unknown> | undefined {
  return run
    .events()
    .filter((e) => e.kind === "summary")
    .at(-1);
}
