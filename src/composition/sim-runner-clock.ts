import type { Clock } from "../core/clock.js";
import type { RunningSim } from "../sim/start-sim.js";

/** The simulator's clock, with worker ports settled after time passes (so REST reflects the new state). */
export function simRunnerClock(sim: RunningSim): Clock {
  return {
    now: () => sim.clock.now(),
    async sleep(ms, signal) {
      await sim.clock.sleep(ms, signal);
      await sim.settle();
    },
  };
}
