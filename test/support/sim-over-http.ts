import pino from "pino";
import { afterEach } from "vitest";
import type { ClusterReader } from "../../src/connect/cluster-reader.js";
import { createHttpClusterReader } from "../../src/connect/http-cluster-reader.js";
import type { ClusterSnapshot } from "../../src/core/snapshot.js";
import { type RunningSim, startSim } from "../../src/sim/start-sim.js";

/**
 * A simulator in virtual time read over HTTP by the real cluster reader, for one test file: the planner and the gate
 * see what they would see of a real cluster. Closed after each test; call at the top level of the file.
 */
export function useSimOverHttp(): (
  options: Parameters<typeof startSim>[0],
) => Promise<{ sim: RunningSim; read: () => Promise<ClusterSnapshot> }> {
  let sim: RunningSim | null = null;
  let reader: ClusterReader | null = null;
  afterEach(async () => {
    await reader?.close();
    await sim?.close();
    sim = null;
    reader = null;
  });
  return async (options) => {
    const running = await startSim({ virtualTime: true, seed: 4, ...options });
    sim = running;
    const r = createHttpClusterReader({
      cluster: "sim",
      workers: running.workers.map((w) => ({ name: w.name, url: w.url, metricsUrl: w.metricsUrl })),
      timeoutMs: 2_000,
      retries: 0,
      now: () => running.clock.now(),
      logger: pino({ level: "silent" }),
    });
    reader = r;
    return { sim: running, read: () => r.read() };
  };
}
