import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AppError, ErrorCode, isAppError } from "../../src/core/errors.js";
import type { Lease } from "../../src/jobs/job-store.js";
import { createLockKeeper } from "../../src/jobs/lock-keeper.js";
import { sleep, waitFor } from "./wait-for.js";

const lease: Lease = { cluster: "prod", jobId: "job-1", owner: "bot-a", token: "t", fence: 1 };
const logger = pino({ level: "silent" });

/** Renewal behaviours the contract suite cannot produce on a healthy store. */
describe("createLockKeeper", () => {
  it("retries a renewal that keeps throwing, and declares the lease lost when it expires", async () => {
    const lost: AppError[] = [];
    let calls = 0;
    const store = {
      renewLock: async () => {
        calls++;
        return Promise.reject(new Error("ETIMEDOUT"));
      },
    };
    const keeper = createLockKeeper({ store, lease, ttlMs: 90, logger, onLost: (r) => lost.push(r) });
    await waitFor(() => keeper.signal.aborted, 1000);
    expect(isAppError(keeper.signal.reason, ErrorCode.LockLost)).toBe(true);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.message).toContain("unreachable until the lease expired");
    expect(calls).toBeGreaterThan(1);
  });

  it("keeps the lease through a blip: failed renewals are retried and one success re-arms the expiry", async () => {
    let calls = 0;
    const blip = new AppError(ErrorCode.StoreUnavailable, "connection refused", { retryable: true });
    const store = { renewLock: async () => (++calls <= 3 && calls > 1 ? Promise.reject(blip) : true) };
    const keeper = createLockKeeper({ store, lease, ttlMs: 300, logger, onLost: () => {}, retryBaseMs: 5 });
    await waitFor(() => calls >= 6, 2000);
    expect(keeper.signal.aborted).toBe(false);
    keeper.stop();
  });

  it("a non-retryable failure (lock/lost) ends the lease at once", async () => {
    const store = { renewLock: async () => Promise.reject(new AppError(ErrorCode.LockLost, "fenced")) };
    const keeper = createLockKeeper({ store, lease, ttlMs: 300, logger, onLost: () => {} });
    await waitFor(() => keeper.signal.aborted, 1000);
    expect(isAppError(keeper.signal.reason, ErrorCode.LockLost)).toBe(true);
    expect((keeper.signal.reason as AppError).message).toContain("renewal failed");
  });

  it("declares the lease lost when it expires while a renewal hangs", async () => {
    let calls = 0;
    const store = { renewLock: () => (++calls > 1 ? new Promise<boolean>(() => {}) : Promise.resolve(true)) };
    let lost = 0;
    const started = Date.now();
    const keeper = createLockKeeper({ store, lease, ttlMs: 120, logger, onLost: () => lost++ });
    await waitFor(() => keeper.signal.aborted, 1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
    expect(lost).toBe(1);
  });

  it("renews every ttl/3 and stops renewing on stop()", async () => {
    let calls = 0;
    const store = {
      renewLock: async () => {
        calls++;
        return true;
      },
    };
    const keeper = createLockKeeper({ store, lease, ttlMs: 60, logger, onLost: () => {} });
    await waitFor(() => calls >= 3, 1000);
    keeper.stop();
    const after = calls;
    await sleep(100);
    expect(calls).toBe(after);
    expect(keeper.signal.aborted).toBe(false);
  });
});
