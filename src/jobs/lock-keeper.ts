import type { Logger } from "pino";
import { AppError, ErrorCode } from "../core/errors.js";
import type { Lease } from "./job-store.js";
import type { LeaseRenewer } from "./store-roles.js";

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
 * Renews `lease` every ttl/3 with real, unref'd timers. The lease counts as lost — signal aborted,
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
  let failures = 0;
  let stopped = false;
  let renewTimer: NodeJS.Timeout | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;

  function clearTimers(): void {
    clearTimeout(renewTimer);
    clearTimeout(expiryTimer);
  }

  function armExpiry(remainingMs: number): void {
    clearTimeout(expiryTimer);
    expiryTimer = setTimeout(
      () =>
        lose(
          failures > 0
            ? `the store was unreachable until the lease expired (${failures} failed renewal(s))`
            : "lease expired before a renewal succeeded",
        ),
      Math.max(0, remainingMs),
    );
    expiryTimer.unref();
  }

  function scheduleRenewal(afterMs = interval): void {
    renewTimer = setTimeout(() => void renew(), afterMs);
    renewTimer.unref();
  }

  /** A throw that proves nothing about the lease (connection refused, timeout): worth retrying. */
  function isBlip(error: unknown): boolean {
    return !(error instanceof AppError) || error.retryable;
  }

  async function renew(): Promise<void> {
    if (stopped) return;
    const sentAt = Date.now();
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
    armExpiry(ttlMs - (Date.now() - sentAt));
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
