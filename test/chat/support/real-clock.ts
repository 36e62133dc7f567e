import { setTimeout as delay } from "node:timers/promises";
import type { Clock } from "../../../src/core/clock.js";

/** Wall-clock time, for tests that talk real HTTP (short intervals keep them fast). */
export function createRealClock(): Clock {
  return {
    now: () => Date.now(),
    sleep: (ms, signal) => delay(Math.max(0, ms), undefined, signal === undefined ? {} : { signal }),
  };
}
