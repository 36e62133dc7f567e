import type { Clock } from "../../../src/core/clock.js";

interface Timer {
  at: number;
  resolve: () => void;
}

export interface ManualClock extends Clock {
  /** Moves time forward, firing due sleeps in order and letting the woken code run. */
  advance(ms: number): Promise<void>;
}

/** Lets pending promise chains (and I/O callbacks) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

export function createManualClock(start = 0): ManualClock {
  let now = start;
  const timers = new Set<Timer>();
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const timer: Timer = { at: now + Math.max(0, ms), resolve };
        timers.add(timer);
        signal?.addEventListener(
          "abort",
          () => {
            timers.delete(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        await settle();
        const due = [...timers].filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        timers.delete(due);
        now = Math.max(now, due.at);
        due.resolve();
      }
      now = target;
      await settle();
    },
  };
}
