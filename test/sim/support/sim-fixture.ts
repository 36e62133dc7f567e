import { afterEach } from "vitest";
import { type RunningSim, type StartSimOptions, startSim } from "../../../src/sim/start-sim.js";
import { type ControlClient, createControlClient } from "./control-client.js";

/**
 * A simulator factory for one test file: virtual time, the file's defaults, closed after each test.
 * Call at the top level of the file (it registers an `afterEach`).
 */
export function useSims(
  defaults: StartSimOptions,
): (extra?: StartSimOptions) => Promise<{ s: RunningSim; c: ControlClient }> {
  const sims: RunningSim[] = [];
  afterEach(async () => {
    await Promise.all(sims.splice(0).map((s) => s.close()));
  });
  return async (extra = {}) => {
    const s = await startSim({ virtualTime: true, ...defaults, ...extra });
    sims.push(s);
    return { s, c: createControlClient(s.controlUrl) };
  };
}
