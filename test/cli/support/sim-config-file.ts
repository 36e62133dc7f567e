import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { type SimConfigInput, simClusterConfig } from "../../../src/composition/sim-cluster-config.js";
import { type RunningSim, type StartSimOptions, startSim } from "../../../src/sim/start-sim.js";
import { waitFor } from "../../support/wait-for.js";

/** A simulator in real time with 3 workers on 3.6.1 and Connect's timings cut to what a CLI test can wait for. */
export const QUICK_SIM = {
  virtualTime: false,
  workers: 3,
  version: "3.6.1",
  delayMs: 1_000,
  restartMs: 200,
  taskStartMs: 50,
  rebalanceMs: 30,
} as const satisfies StartSimOptions;

/**
 * The config section of a simulated cluster the CLI rolls quickly: 1 s scheduled delay, 200 ms restarts, a gate of
 * two 150 ms polls after a 200 ms quiet period; `extra` overrides any of them.
 */
export function quickClusterConfig(
  name: string,
  sim: RunningSim,
  extra: Partial<SimConfigInput> = {},
): Record<string, unknown> {
  return simClusterConfig({
    clusterName: name,
    workers: sim.workers,
    controlUrl: sim.controlUrl,
    delayMs: 1_000,
    restartMs: 200,
    pollIntervalMs: 150,
    quietPeriodMs: 200,
    consecutivePolls: 2,
    ...extra,
  });
}

/**
 * A simulated cluster in real time that the CLI can roll quickly (1 s scheduled delay, 200 ms restarts, a gate of two
 * 150 ms polls after a 200 ms quiet period), and a config file naming it `sim`; resolves once every task runs.
 * `name` tells the config files of different test files apart; `adjust` may change the cluster's section.
 */
export async function quickSimWithConfig(
  name: string,
  options: StartSimOptions,
  adjust: (cluster: Record<string, unknown>) => Record<string, unknown> = (cluster) => cluster,
): Promise<{ sim: RunningSim; config: string }> {
  const sim = await startSim({ ...QUICK_SIM, ...options });
  const config = join(tmpdir(), `connect-roll-${name}-${process.pid}.yml`);
  const cluster = quickClusterConfig("sim", sim);
  await writeFile(config, stringify({ clusters: { sim: adjust(cluster) } }));
  await waitFor("the simulator to start every task", () => {
    const state = sim.cluster.state();
    return state.leader !== null && state.tasks.length > 0 && state.tasks.every((t) => t.state === "RUNNING");
  });
  return { sim, config };
}
