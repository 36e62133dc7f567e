import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { type AppError, ErrorCode, isAppError } from "../../src/core/errors.js";
import type { Lease } from "../../src/jobs/job-store.js";
import { createLockKeeper } from "../../src/jobs/lock-keeper.js";
import { sleep, waitFor } from "./wait-for.js";

const lease: Lease = { cluster: "prod", jobId: "job-1", owner: "bot-a", token: "t", fence: 1 };
const logger = pino({ level: "silent" });

/** Renewal behaviours the contract suite cannot produce on a healthy store. */
describe("createLockKeeper", () => {
  it("treats a renewal that throws as a lost lock", async () => {
    const lost: AppError[] = [];
    const store = { renewLock: async () => Promise.reject(new Error("ETIMEDOUT")) };
    const keeper = createLockKeeper({ store, lease, ttlMs: 90, logger, onLost: (r) => lost.push(r) });
    await waitFor(() => keeper.signal.aborted, 1000);
    expect(isAppError(keeper.signal.reason, ErrorCode.LockLost)).toBe(true);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.cause).toBeInstanceOf(Error);
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
