import type { Logger } from "pino";
import { isAppError } from "../../core/errors.js";
import type { RolloutEvent } from "../../core/rollout/rollout-io.js";
import type { RolloutState } from "../../core/rollout/rollout-state.js";
import type { JobRecord } from "../store/job-record.js";
import type { Lease } from "../store/job-store.js";
import { recordWithState } from "../store/rollout-record.js";
import type { RunnerDeps } from "./runner-deps.js";

/** One run's state beside the rollout's own: what the runner's steps share. */
export interface RunContext {
  readonly deps: RunnerDeps;
  readonly lease: Lease;
  readonly signal: AbortSignal;
  readonly log: Logger;
  record: JobRecord;
  /** Control requests already fed into the state machine: by their `seq` (the store's order of requests). */
  lastControlSeq: number;
  /** Wall-clock ms since which the store has failed every call, or null while it answers. */
  outageSince: number | null;
  /** The latest state, for events emitted outside a transition. */
  state: RolloutState;
}

/** Tells the observers of events; an observer that throws is logged, never fatal. */
export function notify(ctx: RunContext, event: RolloutEvent): void {
  try {
    ctx.deps.onEvent?.(event, ctx.state);
  } catch (err) {
    ctx.log.warn({ err }, "event observer failed");
  }
}

/** Waits `ms` of real time (a Redis outage is real time, even under a virtual rollout clock); rejects on abort. */
function backoff(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs a store call, retrying retryable failures (`store/unavailable`: connection refused, timeout, failover) with
 * backoff for as long as the lease is valid — the lock keeper aborts `signal` when it expires, and then this rejects
 * with the signal's reason. The first failure emits `store-unreachable`, the first success after it
 * `store-recovered`. Nothing else happens meanwhile: a restart is only sent after its checkpoint was written.
 */
export async function withStore<T>(ctx: RunContext, fn: () => Promise<T>): Promise<T> {
  const { baseMs, maxMs } = ctx.deps.storeRetry ?? { baseMs: 100, maxMs: 2_000 };
  for (let attempt = 0; ; attempt++) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    // The outage began when the first failing call was sent (a frozen Redis answers nothing for a command timeout).
    const sentAt = Date.now();
    try {
      const value = await fn();
      if (ctx.outageSince !== null) {
        const since = ctx.outageSince;
        ctx.outageSince = null;
        ctx.log.warn({ downMs: Date.now() - since }, "job store answers again");
        notify(ctx, { kind: "store-recovered", since, downMs: Date.now() - since });
      }
      return value;
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (!isAppError(e) || !e.retryable) throw e;
      if (ctx.outageSince === null) {
        ctx.outageSince = sentAt;
        ctx.log.warn({ err: e }, "job store unreachable; retrying while the lease lasts");
        notify(ctx, { kind: "store-unreachable", since: ctx.outageSince, error: e.message });
      }
      await backoff(Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16)), ctx.signal);
    }
  }
}

/** Writes the runner's checkpoint (fenced by the lease) and keeps the record it wrote. */
export async function checkpoint(ctx: RunContext, state: RolloutState): Promise<void> {
  const next = recordWithState(ctx.record, state);
  await ctx.deps.store.saveJob(ctx.lease, next);
  ctx.record = next;
}
