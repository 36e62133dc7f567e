import type { Clock } from "../../src/core/clock.js";

/** A Clock whose time moves only when a test says so (the lock keeper, the thread notifier's schedule). */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, waking due sleeps in order and letting the woken code run before the next. */
  advance(ms: number): Promise<void>;
  /** Sleeps not yet woken or aborted. */
  pending(): number;
}

/** Lets pending promise chains (and callbacks of finished I/O) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

export function createManualClock(start = 0): ManualClock {
  let now = start;
  const sleeps = new Set<{ at: number; wake: () => void }>();
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const entry = { at: now + Math.max(0, ms), wake: resolve };
        sleeps.add(entry);
        signal?.addEventListener(
          "abort",
          () => {
            sleeps.delete(entry);
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
        const due = [...sleeps].filter((s) => s.at <= target).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        sleeps.delete(due);
        now = Math.max(now, due.at);
        due.wake();
      }
      now = target;
      await settle();
    },
    pending: () => sleeps.size,
  };
}
