import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AppError, ErrorCode, isAppError } from "../../../src/core/errors.js";
import { createLockKeeper } from "../../../src/jobs/runner/lock-keeper.js";
import type { Lease } from "../../../src/jobs/store/job-store.js";
import { createManualClock } from "../../support/manual-clock.js";

const lease: Lease = { cluster: "prod", jobId: "job-1", owner: "bot-a", token: "t", fence: 1 };
const logger = pino({ level: "silent" });

/** Renewal behaviours the contract suite cannot produce on a healthy store, in the keeper's clock's time. */
describe("createLockKeeper", () => {
  it("retries a renewal that keeps throwing, and declares the lease lost when it expires", async () => {
    const clock = createManualClock();
    const lost: AppError[] = [];
    let calls = 0;
    const store = {
      renewLock: async () => {
        calls++;
        return Promise.reject(new Error("ETIMEDOUT"));
      },
    };
    const keeper = createLockKeeper({ store, lease, ttlMs: 90, logger, clock, onLost: (r) => lost.push(r) });
    await clock.advance(89);
    expect(keeper.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(isAppError(keeper.signal.reason, ErrorCode.LockLost)).toBe(true);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.message).toContain("unreachable until the lease expired");
    expect(calls).toBeGreaterThan(1);
  });

  it("keeps the lease through a blip: failed renewals are retried and one success re-arms the expiry", async () => {
    const clock = createManualClock();
    let calls = 0;
    const blip = new AppError(ErrorCode.StoreUnavailable, "connection refused", { retryable: true });
    const store = { renewLock: async () => (++calls <= 3 && calls > 1 ? Promise.reject(blip) : true) };
    const keeper = createLockKeeper({
      store,
      lease,
      ttlMs: 300,
      logger,
      clock,
      onLost: () => {},
      retryBaseMs: 5,
    });
    // Renewals at 100 (ok), 200 and 205 (blips), 215 (ok: the lease now ends at 515), 315, 415.
    await clock.advance(420);
    expect(calls).toBe(6);
    expect(keeper.signal.aborted).toBe(false);
    keeper.stop();
  });

  it("a non-retryable failure (lock/lost) ends the lease at once", async () => {
    const clock = createManualClock();
    const store = { renewLock: async () => Promise.reject(new AppError(ErrorCode.LockLost, "fenced")) };
    const keeper = createLockKeeper({ store, lease, ttlMs: 300, logger, clock, onLost: () => {} });
    await clock.advance(100);
    expect(isAppError(keeper.signal.reason, ErrorCode.LockLost)).toBe(true);
    expect((keeper.signal.reason as AppError).message).toContain("renewal failed");
  });

  it("declares the lease lost when it expires while a renewal hangs", async () => {
    const clock = createManualClock();
    let calls = 0;
    const store = { renewLock: () => (++calls > 1 ? new Promise<boolean>(() => {}) : Promise.resolve(true)) };
    let lost = 0;
    const keeper = createLockKeeper({ store, lease, ttlMs: 120, logger, clock, onLost: () => lost++ });
    // Renewed at 40 (the lease then ends at 160); the renewal sent at 80 never answers.
    await clock.advance(159);
    expect(calls).toBe(2);
    expect(keeper.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(keeper.signal.aborted).toBe(true);
    expect(lost).toBe(1);
  });

  it("renews every ttl/3 and stops renewing on stop()", async () => {
    const clock = createManualClock();
    let calls = 0;
    const store = {
      renewLock: async () => {
        calls++;
        return true;
      },
    };
    const keeper = createLockKeeper({ store, lease, ttlMs: 60, logger, clock, onLost: () => {} });
    await clock.advance(60);
    expect(calls).toBe(3);
    keeper.stop();
    expect(clock.pending()).toBe(0);
    await clock.advance(600);
    expect(calls).toBe(3);
    expect(keeper.signal.aborted).toBe(false);
  });
});
