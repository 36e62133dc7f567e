import type { Clock } from "../core/clock.js";
import { AppError, ErrorCode } from "../core/errors.js";

/** A handle to cancel a scheduled event. */
export interface EventHandle {
  readonly at: number;
  readonly seq: number;
}

export type SchedulerMode = { readonly kind: "virtual" } | { readonly kind: "real"; readonly speed: number };

/**
 * The simulator's discrete-event engine. Events run in (time, sequence) order. In virtual mode nothing happens
 * until `advance`/`advanceTo`; in real mode events fire on real timers, `speed` times faster than wall time.
 */
export interface Scheduler {
  readonly mode: SchedulerMode;
  now(): number;
  /** Runs `run` at absolute simulated time `at` (never before now). */
  at(at: number, run: () => void): EventHandle;
  after(delayMs: number, run: () => void): EventHandle;
  cancel(handle: EventHandle | null): void;
  /** Virtual mode only: runs every event up to now + ms, then sets the time to now + ms. */
  advance(ms: number): void;
  advanceTo(t: number): void;
  /** The Clock port on simulated time (virtual: sleeping advances the simulation). */
  readonly clock: Clock;
  pendingCount(): number;
  close(): void;
}

interface QueuedEvent extends EventHandle {
  readonly run: () => void;
  cancelled: boolean;
}

function before(a: QueuedEvent, b: QueuedEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** Binary min-heap on (at, seq). */
function createHeap() {
  const items: QueuedEvent[] = [];
  const swap = (i: number, j: number) => {
    const a = items[i];
    const b = items[j];
    if (a && b) {
      items[i] = b;
      items[j] = a;
    }
  };
  return {
    size: () => items.length,
    peek: (): QueuedEvent | undefined => items[0],
    push(e: QueuedEvent) {
      items.push(e);
      let i = items.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        const ip = items[p];
        const ii = items[i];
        if (!ip || !ii || !before(ii, ip)) break;
        swap(i, p);
        i = p;
      }
    },
    pop(): QueuedEvent | undefined {
      const top = items[0];
      const last = items.pop();
      if (items.length > 0 && last) {
        items[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          const im = () => items[m];
          const il = items[l];
          const ir = items[r];
          const cur = im();
          if (il && cur && before(il, cur)) m = l;
          const cur2 = im();
          if (ir && cur2 && before(ir, cur2)) m = r;
          if (m === i) break;
          swap(i, m);
          i = m;
        }
      }
      return top;
    },
  };
}

export interface SchedulerOptions {
  readonly mode: SchedulerMode;
  /** Simulated time at creation. */
  readonly startAt: number;
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { mode } = options;
  const heap = createHeap();
  let seq = 0;
  let virtualNow = options.startAt;
  const realStart = Date.now();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let live = 0;

  const now = (): number =>
    mode.kind === "virtual"
      ? virtualNow
      : options.startAt + Math.floor((Date.now() - realStart) * mode.speed);

  const runDue = (until: number): void => {
    for (;;) {
      const top = heap.peek();
      if (!top || top.at > until) return;
      heap.pop();
      if (top.cancelled) continue;
      top.cancelled = true;
      live -= 1;
      if (mode.kind === "virtual") virtualNow = Math.max(virtualNow, top.at);
      top.run();
    }
  };

  const armRealTimer = (): void => {
    if (mode.kind !== "real" || closed) return;
    if (timer) clearTimeout(timer);
    timer = null;
    let top = heap.peek();
    while (top?.cancelled) {
      heap.pop();
      top = heap.peek();
    }
    if (!top) return;
    const waitMs = Math.max(0, (top.at - now()) / mode.speed);
    timer = setTimeout(() => {
      timer = null;
      runDue(now());
      armRealTimer();
    }, Math.ceil(waitMs));
  };

  const at = (t: number, run: () => void): EventHandle => {
    const event: QueuedEvent = { at: Math.max(t, now()), seq: seq++, run, cancelled: false };
    heap.push(event);
    live += 1;
    if (mode.kind === "real" && (heap.peek() === event || timer === null)) armRealTimer();
    return event;
  };

  const advanceTo = (t: number): void => {
    if (mode.kind !== "virtual") {
      throw new AppError(ErrorCode.SimInvalid, "advance is only available in virtual time");
    }
    if (t < virtualNow) return;
    runDue(t);
    virtualNow = t;
  };

  const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (mode.kind === "virtual") {
      return Promise.resolve().then(() => {
        if (signal?.aborted) throw signal.reason;
        advanceTo(virtualNow + Math.max(0, ms));
      });
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(handle);
        reject(signal?.reason);
      };
      const handle = setTimeout(
        () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        Math.max(0, ms / mode.speed),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  };

  return {
    mode,
    now,
    at,
    after: (delayMs, run) => at(now() + Math.max(0, delayMs), run),
    cancel(handle) {
      if (!handle) return;
      const e = handle as QueuedEvent;
      if (!e.cancelled) {
        e.cancelled = true;
        live -= 1;
      }
    },
    advance: (ms) => advanceTo(now() + Math.max(0, ms)),
    advanceTo,
    clock: { now, sleep },
    pendingCount: () => live,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
