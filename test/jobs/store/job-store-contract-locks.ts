import { setTimeout as sleep } from "node:timers/promises";
import { beforeEach, describe, expect, it } from "vitest";
import { type AppError, ErrorCode, isAppError } from "../../../src/core/errors.js";
import { createLockKeeper } from "../../../src/jobs/runner/lock-keeper.js";
import type { JobStore, Lease } from "../../../src/jobs/store/job-store.js";
import { createManualClock } from "../../support/manual-clock.js";
import { waitFor } from "../../support/wait-for.js";
import { aJob } from "./job-fixtures.js";
import {
  type ContractContext,
  expectCode,
  type JobStoreHarness,
  leaseFor,
  lockExpired,
  silent,
  TTL,
} from "./job-store-contract-support.js";

/** Locks, fencing and the lock keeper on a real store. */
export function lockContract(t: ContractContext): void {
  let h: JobStoreHarness;
  let store: JobStore;
  beforeEach(() => {
    ({ h, store } = t);
  });

  describe("lock", () => {
    it("lets exactly one of two concurrent acquirers win; the other sees the holder and since", async () => {
      const [a, b] = await Promise.all([
        store.acquireLock("prod", { jobId: "j1", owner: "bot-a", ttlMs: TTL }),
        h.replica.acquireLock("prod", { jobId: "j2", owner: "bot-b", ttlMs: TTL }),
      ]);
      const won = [a, b].filter((r) => r.kind === "acquired");
      const lost = [a, b].flatMap((r) => (r.kind === "held" ? [r.holder] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      const winner = won[0]?.kind === "acquired" ? won[0].lease : undefined;
      expect(lost[0]).toMatchObject({ jobId: winner?.jobId, owner: winner?.owner });
      expect(lost[0]?.since).toBeGreaterThan(Date.UTC(2024, 0, 1)); // epoch ms
      expect(lost[0]?.expiresAt).toBe((lost[0]?.since ?? Number.NaN) + TTL);
      expect(await store.readLock("prod")).toEqual(lost[0]);
    });

    it("lets another acquire with a higher fence once the lease expires", async () => {
      const first = await store.acquireLock("prod", { jobId: "j1", owner: "bot-a", ttlMs: 200 });
      expect(await h.replica.acquireLock("prod", { jobId: "j2", owner: "bot-b", ttlMs: 200 })).toMatchObject({
        kind: "held",
      });
      await lockExpired(store, "prod", "the first lease to expire");
      const second = await h.replica.acquireLock("prod", { jobId: "j2", owner: "bot-b", ttlMs: 200 });
      if (first.kind !== "acquired" || second.kind !== "acquired") throw new Error("not acquired");
      expect(second.lease.fence).toBeGreaterThan(first.lease.fence);
      expect(second.lease.token).not.toBe(first.lease.token);
    });

    it("is released only by its owner", async () => {
      const lease = await leaseFor(store, aJob());
      expect(await h.replica.releaseLock({ ...lease, token: "not-the-token" })).toBe(false);
      expect(await store.readLock("prod")).toMatchObject({ jobId: lease.jobId });
      expect(await store.releaseLock(lease)).toBe(true);
      expect(await store.readLock("prod")).toBeNull();
      expect(await store.releaseLock(lease)).toBe(false);
    });

    it("renews while held, and refuses renewal after expiry", async () => {
      const lease = await leaseFor(store, aJob(), "bot-a", 200);
      const before = await store.readLock("prod");
      expect(await store.renewLock(lease, 400)).toBe(true);
      const after = await store.readLock("prod");
      // Renewed from the time of the renewal: at least 200 ms past the first expiry.
      expect(
        (after?.expiresAt ?? 0) - (before?.expiresAt ?? Number.POSITIVE_INFINITY),
      ).toBeGreaterThanOrEqual(200);
      await lockExpired(store, "prod", "the renewed lease to expire");
      expect(await store.renewLock(lease, 200)).toBe(false);
      expect(await store.readLock("prod")).toBeNull();
    });

    it("force-releases whoever holds it and audits it", async () => {
      const job = aJob();
      await store.createJob(job);
      const lease = await leaseFor(store, job);
      const result = await h.replica.forceRelease("prod", "U-operator");
      expect(result).toMatchObject({ kind: "released", holder: { jobId: job.id, owner: "bot-a" } });
      expect(await store.renewLock(lease, TTL)).toBe(false);
      await expectCode(store.saveJob(lease, job), ErrorCode.LockLost);
      expect(await store.forceRelease("prod", "U-operator")).toEqual({ kind: "not-held" });
      const audit = await store.readAudit(job.id);
      expect(audit.map((e) => [e.action, e.actor])).toEqual([["lock-force-released", "U-operator"]]);
    });
  });

  describe("lock keeper", () => {
    // The keeper's time is a manual clock; the store's is real (Redis expires keys itself), so the lease's own
    // expiry is waited out with sleep, and each renewal the keeper's clock asks for is awaited.
    it("keeps the lease alive past its ttl until stopped", async () => {
      const lease = await leaseFor(store, aJob(), "bot-a", 200);
      const clock = createManualClock();
      let renewals = 0;
      const renewing = {
        renewLock: (l: Lease, ttlMs: number) => store.renewLock(l, ttlMs).finally(() => renewals++),
      };
      let lost = 0;
      const keeper = createLockKeeper({
        store: renewing,
        lease,
        ttlMs: 200,
        logger: silent,
        clock,
        onLost: () => lost++,
      });
      for (let i = 1; i <= 4; i++) {
        await sleep(70); // the store's time passes: 280 ms in all, past the 200 ms ttl
        await clock.advance(67);
        await waitFor(`renewal ${i}`, () => renewals === i, { timeoutMs: 2000, intervalMs: 5 });
      }
      expect(keeper.signal.aborted).toBe(false);
      expect(await store.readLock("prod")).toMatchObject({ jobId: lease.jobId });
      keeper.stop();
      await lockExpired(store, "prod", "the last renewal's ttl to run out in the store");
      expect(lost).toBe(0);
    });

    it("aborts its signal and calls onLost once when the lock key disappears", async () => {
      const lease = await leaseFor(store, aJob(), "bot-a", 240);
      const clock = createManualClock();
      const reasons: AppError[] = [];
      const keeper = createLockKeeper({
        store,
        lease,
        ttlMs: 240,
        logger: silent,
        clock,
        onLost: (r) => reasons.push(r),
      });
      await h.deleteLockKey("prod");
      await clock.advance(80);
      await waitFor("the keeper's signal to abort", () => keeper.signal.aborted, {
        timeoutMs: 1000,
        intervalMs: 5,
      });
      expect(isAppError(keeper.signal.reason, ErrorCode.LockLost)).toBe(true);
      // Nothing more: no renewal or expiry is left waiting, and time passing past the lease calls no one again.
      expect(clock.pending()).toBe(0);
      await clock.advance(1_000);
      expect(reasons).toHaveLength(1);
      expect(reasons[0]?.code).toBe(ErrorCode.LockLost);
      keeper.stop();
    });
  });
}
