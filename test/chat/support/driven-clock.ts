import type { Clock } from "../../../src/core/clock.js";
import { settle } from "../../support/manual-clock.js";

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/**
 * Virtual time for code that also does real I/O (HTTP to a local fake): time stands still while a tracked call is in
 * flight and jumps to the next timer only once nothing is, so sleeps cost nothing and spacing is measured exactly.
 */
export interface DrivenClock extends Clock {
  /** Counts `call` as in flight until it settles. */
  track<T>(call: Promise<T>): Promise<T>;
  /** Moves time as the code under test sleeps, until `work` settles; resolves or rejects as it does. */
  run<T>(work: Promise<T>): Promise<T>;
  /** Moves time forward by `ms` the same way, firing due sleeps in order. */
  advance(ms: number): Promise<void>;
}

export function createDrivenClock(start = 0): DrivenClock {
  let now = start;
  let seq = 0;
  const timers = new Set<Timer>();
  const inFlight = new Set<Promise<unknown>>();

  /** Until no tracked call is in flight and the code they woke has run. */
  async function quiet(): Promise<void> {
    for (;;) {
      await settle();
      if (inFlight.size === 0) return;
      await Promise.allSettled([...inFlight]);
    }
  }

  /** Fires the earliest sleep due by `limit`; false when there is none. */
  function fireNext(limit: number): boolean {
    const due = [...timers].filter((t) => t.at <= limit).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
    if (due === undefined) return false;
    timers.delete(due);
    now = Math.max(now, due.at);
    due.resolve();
    return true;
  }

  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const timer: Timer = { at: now + Math.max(0, ms), seq: seq++, resolve };
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
    track(call) {
      inFlight.add(call);
      const done = () => inFlight.delete(call);
      call.then(done, done);
      return call;
    },
    async run(work) {
      let settled = false;
      const watched = work.finally(() => {
        settled = true;
      });
      watched.catch(() => undefined);
      for (;;) {
        await quiet();
        if (settled) return watched;
        if (!fireNext(Number.POSITIVE_INFINITY))
          throw new Error("the work waits, but nothing is in flight and no sleep is due");
      }
    },
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        await quiet();
        if (!fireNext(target)) break;
      }
      now = target;
      await quiet();
    },
  };
}
