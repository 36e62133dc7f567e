import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import type { SimConfigInput } from "../../../src/composition/sim-cluster-config.js";
import type { RunningSim } from "../../../src/sim/start-sim.js";
import { quickClusterConfig } from "./sim-config-file.js";

/** A `fleet run --json` line: a cluster's rollout event (marked with its cluster) or the fleet's own. */
export interface FleetLine {
  readonly kind: string;
  readonly cluster?: string;
  readonly fleet?: string;
  readonly event?: string;
  readonly stage?: number;
  readonly result?: string;
  readonly reason?: string;
}

/**
 * A config file with the simulated clusters (named as in `sims`, each as `quickClusterConfig` makes it) and `fleets`
 * over them; `adjust` may add to a cluster's options.
 */
export async function writeSimFleetConfig(
  file: string,
  sims: ReadonlyMap<string, RunningSim>,
  fleets: Record<string, unknown>,
  adjust: (name: string) => Partial<SimConfigInput> = () => ({}),
): Promise<string> {
  const clusters = Object.fromEntries(
    [...sims].map(([name, sim]) => [name, quickClusterConfig(name, sim, adjust(name))]),
  );
  const path = join(tmpdir(), `connect-roll-${file}-${process.pid}.yml`);
  await writeFile(path, stringify({ clusters, fleets }));
  return path;
}

/** Each simulated cluster's restarts so far, by name. */
export function restartTotals(sims: ReadonlyMap<string, RunningSim>): Record<string, number> {
  return Object.fromEntries(
    [...sims].map(([name, sim]) => [
      name,
      Object.values(sim.cluster.state().counters.restarts).reduce((a, b) => a + b, 0),
    ]),
  );
}
