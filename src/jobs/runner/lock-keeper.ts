import type { Logger } from "pino";
import type { Clock } from "../../core/clock.js";
import { AppError, ErrorCode } from "../../core/errors.js";
import { plural } from "../../core/plural.js";
import type { Lease } from "../store/job-store.js";
import type { LeaseRenewer } from "../store/store-roles.js";
import { backgroundClock } from "./system-clock.js";

export interface LockKeeperOptions {
  store: LeaseRenewer;
  lease: Lease;
  /** Lease length; renewed every ttlMs / 3. */
  ttlMs: number;
  logger: Logger;
  /** Called once, when the lease is lost, after `signal` is aborted. */
  onLost: (reason: AppError) => void;
  /** First wait before a failed renewal is retried (doubled up to ttl/6). Default 50 ms. */
  retryBaseMs?: number;
  /**
   * The time the lease runs in: when to renew, when it has expired. The store's time, so never a rollout's virtual
   * clock. Default: the wall clock, with sleeps that do not keep the process alive (`backgroundClock`).
   */
  clock?: Clock;
}

/** Keeps a lease alive while a rollout runs. */
export interface LockKeeper {
  readonly lease: Lease;
  /**
   * Aborted (reason: AppError `lock/lost`) as soon as the lease is known or presumed lost. The runner
   * passes it to every effect so no worker is restarted after another replica may have taken over.
   */
  readonly signal: AbortSignal;
  /** Stops renewing (the signal is left as is). Call before releasing the lock. Idempotent. */
  stop(): void;
}

/**
 * Renews `lease` every ttl/3 of its clock. The lease counts as lost — signal aborted,
 * `onLost` called once, renewing stops — when a renewal returns false (expired, released, forced or
 * taken over), when it throws a non-retryable error (`lock/lost`, `store/corrupt`), or when the lease's
 * expiry (measured from the send time of the last renewal that succeeded) passes without a renewal.
 * A renewal that throws a retryable or unknown error (a Redis blip, a timeout) is retried with backoff
 * until then: a 1.5 s outage does not end a run with most of its lease left, and nothing is done
 * past the expiry, since no other replica can take the lock before it.
 */
export function createLockKeeper(options: LockKeeperOptions): LockKeeper {
  const { store, lease, ttlMs, onLost } = options;
  const logger = options.logger.child({
    component: "lock-keeper",
    jobId: lease.jobId,
    cluster: lease.cluster,
  });
  const controller = new AbortController();
  const interval = Math.max(1, Math.floor(ttlMs / 3));
  const retryCapMs = Math.max(1, Math.floor(ttlMs / 6));
  const retryBaseMs = Math.min(options.retryBaseMs ?? 50, retryCapMs);
  const clock = options.clock ?? backgroundClock;
  let failures = 0;
  let stopped = false;
  let renewWait: AbortController | undefined;
  let expiryWait: AbortController | undefined;

  /** Runs `then` after `ms` of the clock unless the returned controller is aborted first. */
  function after(ms: number, then: () => void): AbortController {
    const cancel = new AbortController();
    clock.sleep(ms, cancel.signal).then(
      () => {
        if (!cancel.signal.aborted) then();
      },
      () => undefined,
    );
    return cancel;
  }

  function clearTimers(): void {
    renewWait?.abort();
    expiryWait?.abort();
  }

  function armExpiry(remainingMs: number): void {
    expiryWait?.abort();
    expiryWait = after(Math.max(0, remainingMs), () =>
      lose(
        failures > 0
          ? `the store was unreachable until the lease expired (${plural(failures, "failed renewal")})`
          : "lease expired before a renewal succeeded",
      ),
    );
  }

  function scheduleRenewal(afterMs = interval): void {
    renewWait = after(afterMs, () => void renew());
  }

  /** A throw that proves nothing about the lease (connection refused, timeout): worth retrying. */
  function isBlip(error: unknown): boolean {
    return !(error instanceof AppError) || error.retryable;
  }

  async function renew(): Promise<void> {
    if (stopped) return;
    const sentAt = clock.now();
    let renewed = false;
    let failure: unknown;
    try {
      renewed = await store.renewLock(lease, ttlMs);
    } catch (error) {
      failure = error;
    }
    if (stopped) return;
    if (failure !== undefined && isBlip(failure)) {
      failures += 1;
      if (failures === 1)
        logger.warn({ err: failure }, "lock renewal failed; retrying while the lease lasts");
      scheduleRenewal(Math.min(retryCapMs, retryBaseMs * 2 ** (failures - 1)));
      return;
    }
    if (!renewed) {
      lose(failure === undefined ? "renewal refused: the lock is no longer ours" : "renewal failed", failure);
      return;
    }
    if (failures > 0) logger.info({ failures }, "lock renewed again after failures");
    failures = 0;
    armExpiry(ttlMs - (clock.now() - sentAt));
    scheduleRenewal();
  }

  function lose(why: string, cause?: unknown): void {
    if (stopped) return;
    stopped = true;
    clearTimers();
    const reason = new AppError(ErrorCode.LockLost, `lock lost on ${lease.cluster}: ${why}`, {
      cause,
      details: { cluster: lease.cluster, jobId: lease.jobId, fence: lease.fence },
    });
    logger.warn({ err: reason, fence: lease.fence }, "lock lost");
    controller.abort(reason);
    try {
      onLost(reason);
    } catch (error) {
      logger.error({ err: error }, "onLost handler threw");
    }
  }

  armExpiry(ttlMs);
  scheduleRenewal();

  return {
    lease,
    signal: controller.signal,
    stop() {
      stopped = true;
      clearTimers();
    },
  };
}
