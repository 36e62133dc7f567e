import type { Clock } from "../../core/clock.js";

/** Real time; `unref` sleeps do not keep the process alive. */
function wallClock(options: { readonly unref: boolean }): Clock {
  return {
    now: () => Date.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const timer = setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }, ms);
        if (options.unref) timer.unref();
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
  };
}

/** The wall clock (production). Virtual clocks come from the simulator. */
export const systemClock: Clock = wallClock({ unref: false });

/**
 * The wall clock for upkeep in the background (the lock keeper's renewals): its sleeps do not keep the process
 * alive, so a keeper left running never holds up an exit.
 */
export const backgroundClock: Clock = wallClock({ unref: true });
