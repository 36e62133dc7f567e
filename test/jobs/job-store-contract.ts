import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AppError, ErrorCode, isAppError } from "../../src/core/errors.js";
import type { Decision, JobRecord } from "../../src/jobs/job-record.js";
import type { JobStore, Lease } from "../../src/jobs/job-store.js";
import { createLockKeeper } from "../../src/jobs/lock-keeper.js";
import { waitFor } from "../support/wait-for.js";
import { aHistoryEntry, aJob } from "./job-fixtures.js";

/** One backend for one test: a store, a second replica on the same data, and hooks to break things. */
export interface JobStoreHarness {
  store: JobStore;
  /** Another store (replica) over the same backend. */
  replica: JobStore;
  /** Overwrites the stored body of a job with raw text. */
  corruptRecord(jobId: string, text: string): Promise<void>;
  /** Deletes a cluster's lock behind everyone's back (as if it expired or was flushed). */
  deleteLockKey(cluster: string): Promise<void>;
  /** How many decision waiters listen for wake-ups about `jobId` (on any store of this backend). */
  decisionListeners(jobId: string): Promise<number>;
  /** Closes the stores and removes everything the test wrote. */
  cleanup(): Promise<void>;
}

export interface HarnessOptions {
  historyLimit?: number;
}

export type JobStoreFactory = (options?: HarnessOptions) => Promise<JobStoreHarness>;

const TTL = 300;
/** A poll interval no test waits out: a waiter given it only ever wakes up by a wake-up. */
const NEVER_POLL_MS = 2_147_483_647;
const silent = pino({ level: "silent" });

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isAppError(error, code)) throw new Error(`expected AppError ${code}, got ${String(error)}`);
  return error;
}

/** Waits until nobody holds the cluster's lock (its lease expired: real time, the backend's clock). */
async function lockExpired(store: JobStore, cluster: string, what: string): Promise<void> {
  await waitFor(what, async () => (await store.readLock(cluster)) === null, { timeoutMs: 5000 });
}

/** The store's renewLock, calling `onRenew` first. */
function counting(store: JobStore, onRenew: () => void): Pick<JobStore, "renewLock"> {
  return {
    renewLock(lease, ttlMs) {
      onRenew();
      return store.renewLock(lease, ttlMs);
    },
  };
}

async function leaseFor(store: JobStore, job: JobRecord, owner = "bot-a", ttlMs = TTL): Promise<Lease> {
  const result = await store.acquireLock(job.cluster, { jobId: job.id, owner, ttlMs });
  if (result.kind !== "acquired") throw new Error(`lock held by ${result.holder.jobId}`);
  return result.lease;
}

/** The behaviour every JobStore adapter must have. */
export function jobStoreContract(name: string, factory: JobStoreFactory): void {
  describe(`JobStore contract: ${name}`, () => {
    let h: JobStoreHarness;
    let store: JobStore;
    const extra: JobStoreHarness[] = [];
    beforeEach(async () => {
      h = await factory();
      store = h.store;
    });
    afterEach(async () => {
      await h.cleanup();
      for (const other of extra.splice(0)) await other.cleanup();
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
        expect(
          await h.replica.acquireLock("prod", { jobId: "j2", owner: "bot-b", ttlMs: 200 }),
        ).toMatchObject({
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
      it("keeps the lease alive past its ttl until stopped", async () => {
        const lease = await leaseFor(store, aJob(), "bot-a", 200);
        const firstExpiry = (await store.readLock("prod"))?.expiresAt ?? 0;
        let lost = 0;
        const keeper = createLockKeeper({ store, lease, ttlMs: 200, logger: silent, onLost: () => lost++ });
        // A renewal that expires 200 ms after the first expiry was made after it: the lease outlived its ttl.
        await waitFor("the keeper to renew the lease past its first expiry", async () => {
          const holder = await store.readLock("prod");
          if (holder === null) throw new Error("the lease expired while the keeper ran");
          return holder.expiresAt >= firstExpiry + 200;
        });
        expect(keeper.signal.aborted).toBe(false);
        expect(await store.readLock("prod")).toMatchObject({ jobId: lease.jobId });
        keeper.stop();
        await lockExpired(store, "prod", "the lease to expire once the keeper stopped");
        expect(lost).toBe(0);
      });

      it("aborts its signal and calls onLost once when the lock key disappears", async () => {
        const lease = await leaseFor(store, aJob(), "bot-a", 240);
        const reasons: AppError[] = [];
        let renewals = 0;
        const keeper = createLockKeeper({
          store: counting(store, () => renewals++),
          lease,
          ttlMs: 240,
          logger: silent,
          onLost: (r) => reasons.push(r),
        });
        await h.deleteLockKey("prod");
        await waitFor("the keeper to notice the lock is gone", () => keeper.signal.aborted, {
          timeoutMs: 1000,
        });
        expect(isAppError(keeper.signal.reason, ErrorCode.LockLost)).toBe(true);
        expect(reasons).toHaveLength(1);
        // Nothing after: a keeper with the same ttl, started now, renews three times (a whole ttl, past the lost
        // lease's own expiry timer) while the first renews nothing more and does not call onLost again.
        const renewalsAtLoss = renewals;
        const witnessLease = await leaseFor(store, aJob({ cluster: "witness" }), "bot-a", 240);
        let witnessed = 0;
        const witness = createLockKeeper({
          store: counting(store, () => witnessed++),
          lease: witnessLease,
          ttlMs: 240,
          logger: silent,
          onLost: () => {},
        });
        await waitFor("a second keeper's third renewal", () => witnessed >= 3);
        witness.stop();
        expect(renewals).toBe(renewalsAtLoss);
        expect(reasons).toHaveLength(1);
        expect(reasons[0]?.code).toBe(ErrorCode.LockLost);
        keeper.stop();
      });
    });

    describe("job records", () => {
      it("creates, loads and saves with the lease's fence and owner", async () => {
        const job = aJob({ status: "pending" });
        await store.createJob(job);
        expect(await h.replica.loadJob(job.id)).toEqual(job);
        const lease = await leaseFor(store, job);
        await store.saveJob(lease, { ...job, status: "running", state: { step: 1 } });
        expect(await h.replica.loadJob(job.id)).toEqual({
          ...job,
          status: "running",
          state: { step: 1 },
          fence: lease.fence,
          owner: "bot-a",
        });
        await expectCode(store.createJob(job), ErrorCode.Internal);
        await expectCode(store.loadJob("nope"), ErrorCode.JobNotFound);
      });

      it("refuses a stale lease's save after a takeover, writing nothing", async () => {
        const job = aJob();
        await store.createJob(job);
        const old = await leaseFor(store, job, "bot-a", 200);
        await store.saveJob(old, { ...job, state: { step: 1 } });
        await lockExpired(store, "prod", "the first runner's lease to expire");
        const orphans = await h.replica.findOrphans();
        expect(orphans.map((o) => o.id)).toEqual([job.id]);
        const taken = await h.replica.takeOver(job, "bot-b", TTL);
        if (taken.kind !== "acquired") throw new Error(`takeover failed: ${taken.kind}`);
        expect(taken.lease.fence).toBeGreaterThan(old.fence);
        await expectCode(store.saveJob(old, { ...job, state: { step: 99 } }), ErrorCode.LockLost);
        expect(await store.loadJob(job.id)).toMatchObject({
          state: { step: 1 },
          fence: taken.lease.fence,
          owner: "bot-b",
        });
        await h.replica.saveJob(taken.lease, { ...job, state: { step: 2 } });
        expect((await store.loadJob(job.id)).state).toEqual({ step: 2 });
        expect((await store.readAudit(job.id)).map((e) => e.action)).toEqual(["lock-taken-over"]);
        expect(await store.findOrphans()).toEqual([]);
      });

      it("refuses a takeover of a held or finished job", async () => {
        const job = aJob();
        await store.createJob(job);
        await leaseFor(store, job);
        expect(await h.replica.takeOver(job, "bot-b", TTL)).toMatchObject({
          kind: "held",
          holder: { jobId: job.id },
        });
        const done = aJob({ status: "succeeded", cluster: "other" });
        await store.createJob(done);
        expect(await h.replica.takeOver(done, "bot-b", TTL)).toEqual({
          kind: "finished",
          status: "succeeded",
        });
      });

      it("refuses a save after release, and a lease for another job", async () => {
        const job = aJob();
        await store.createJob(job);
        const lease = await leaseFor(store, job);
        await expectCode(store.saveJob(lease, { ...job, id: "other" }), ErrorCode.Internal);
        await store.releaseLock(lease);
        await expectCode(store.saveJob(lease, { ...job, status: "failed" }), ErrorCode.LockLost);
        expect((await store.loadJob(job.id)).status).toBe("running");
      });

      it("lists jobs by cluster and unfinished, oldest first", async () => {
        const a = aJob({ createdAt: 1, cluster: "prod" });
        const b = aJob({ createdAt: 2, cluster: "stage" });
        const c = aJob({ createdAt: 3, cluster: "prod", status: "succeeded" });
        for (const job of [c, b, a]) await store.createJob(job);
        expect((await store.listJobs()).map((j) => j.id)).toEqual([a.id, b.id, c.id]);
        expect((await store.listJobs({ cluster: "prod" })).map((j) => j.id)).toEqual([a.id, c.id]);
        expect((await store.listJobs({ unfinishedOnly: true })).map((j) => j.id)).toEqual([a.id, b.id]);
        const lease = await leaseFor(store, a);
        await store.saveJob(lease, { ...a, status: "aborted" });
        expect((await store.listJobs({ unfinishedOnly: true, cluster: "prod" })).map((j) => j.id)).toEqual(
          [],
        );
      });

      it("reports a corrupt record as store/corrupt naming the key and the path", async () => {
        const job = aJob();
        await store.createJob(job);
        const { fence: _f, owner: _o, control: _c, ...body } = job;
        await h.corruptRecord(job.id, JSON.stringify({ ...body, status: "exploded" }));
        const error = await expectCode(store.loadJob(job.id), ErrorCode.StoreCorrupt);
        expect(error.message).toContain(job.id);
        expect(error.message).toContain("status");
        await expectCode(store.listJobs(), ErrorCode.StoreCorrupt);
        await h.corruptRecord(job.id, "{not json");
        await expectCode(store.loadJob(job.id), ErrorCode.StoreCorrupt);
      });

      it("finds orphans: unfinished jobs whose cluster lock is free", async () => {
        const held = aJob({ cluster: "a" });
        const free = aJob({ cluster: "b" });
        const done = aJob({ cluster: "c", status: "failed" });
        for (const job of [held, free, done]) await store.createJob(job);
        const lease = await leaseFor(store, held);
        expect((await store.findOrphans()).map((j) => j.id)).toEqual([free.id]);
        await store.releaseLock(lease);
        expect((await h.replica.findOrphans()).map((j) => j.id).sort()).toEqual([held.id, free.id].sort());
      });
    });

    describe("approvals", () => {
      async function awaiting(approvalId: string): Promise<JobRecord> {
        const job = aJob();
        await store.createJob(job);
        const lease = await leaseFor(store, job);
        const next: JobRecord = {
          ...job,
          status: "awaiting-approval",
          pendingApproval: { id: approvalId, kind: "eager-window", prompt: "Approve?" },
        };
        await store.saveJob(lease, next);
        return next;
      }
      const decision = (by: string, d: Decision["decision"] = "approve"): Decision => ({
        decision: d,
        by,
        at: 1,
      });

      it("records exactly one of many concurrent decisions (first writer wins)", async () => {
        const job = await awaiting("ap-1");
        const stores = [store, h.replica, store, h.replica, store];
        const results = await Promise.all(
          stores.map((s, i) => s.decide(job.id, "ap-1", decision(`U${i}`, i % 2 ? "abort" : "approve"))),
        );
        const recorded = results.flatMap((r, i) => (r.kind === "recorded" ? [i] : []));
        expect(recorded).toHaveLength(1);
        const winner = decision(`U${recorded[0]}`, (recorded[0] ?? 0) % 2 ? "abort" : "approve");
        for (const r of results)
          if (r.kind !== "recorded") expect(r).toEqual({ kind: "already-decided", decision: winner });
        expect(await store.readDecision(job.id, "ap-1")).toEqual(winner);
      });

      it("refuses a decision when the job does not await that approval", async () => {
        const plain = aJob();
        await store.createJob(plain);
        expect(await store.decide(plain.id, "ap-1", decision("U1"))).toEqual({ kind: "not-awaiting" });
        const job = await awaiting("ap-2");
        expect(await store.decide(job.id, "ap-1", decision("U1"))).toEqual({ kind: "not-awaiting" });
        expect(await store.readDecision(job.id, "ap-1")).toBeNull();
        await expectCode(store.decide("nope", "ap-1", decision("U1")), ErrorCode.JobNotFound);
      });

      it("wakes a waiter as soon as a decision is recorded on any replica", async () => {
        const job = await awaiting("ap-3");
        const controller = new AbortController();
        let woken: Decision | undefined;
        const wait = store.waitForDecision(job.id, "ap-3", {
          signal: controller.signal,
          pollMs: NEVER_POLL_MS,
        });
        void wait.then((d) => {
          woken = d;
        });
        await waitFor(
          "the waiter to listen for wake-ups",
          async () => (await h.decisionListeners(job.id)) > 0,
        );
        expect(woken).toBeUndefined();
        expect(await h.replica.decide(job.id, "ap-3", decision("U7"))).toEqual({ kind: "recorded" });
        // It never polls again: only the wake-up can end the wait.
        expect(
          await waitFor("the waiter to wake up with the decision", () => woken, { timeoutMs: 5000 }),
        ).toEqual(decision("U7"));
      });

      it("returns a decision recorded before the wait began, and rejects on abort", async () => {
        const job = await awaiting("ap-4");
        await store.decide(job.id, "ap-4", decision("U1"));
        const never = new AbortController();
        expect(await store.waitForDecision(job.id, "ap-4", { signal: never.signal, pollMs: 50 })).toEqual(
          decision("U1"),
        );
        const controller = new AbortController();
        const wait = store.waitForDecision(job.id, "ap-other", { signal: controller.signal, pollMs: 10_000 });
        const reason = new Error("stop waiting");
        controller.abort(reason);
        await expect(wait).rejects.toBe(reason);
      });
    });

    describe("control requests", () => {
      it("stores pause, resume and abort durably; a runner save does not clobber them", async () => {
        const job = aJob();
        await store.createJob(job);
        const lease = await leaseFor(store, job);
        expect(await h.replica.requestControl(job.id, { action: "pause", by: "U1", at: 10 })).toEqual({
          kind: "recorded",
          control: { pause: true, abort: false, by: "U1", at: 10, seq: 1 },
        });
        await store.saveJob(lease, { ...job, control: null, state: { step: 3 } });
        expect((await store.loadJob(job.id)).control).toEqual({
          pause: true,
          abort: false,
          by: "U1",
          at: 10,
          seq: 1,
        });
        await h.replica.requestControl(job.id, { action: "resume", by: "U2", at: 11 });
        await h.replica.requestControl(job.id, { action: "abort", by: "U3", at: 12 });
        await h.replica.requestControl(job.id, { action: "pause", by: "U4", at: 13 });
        expect((await store.loadJob(job.id)).control).toEqual({
          pause: true,
          abort: true,
          by: "U4",
          at: 13,
          seq: 4,
        });
        await store.saveJob(lease, { ...job, status: "aborted" });
        expect(await store.requestControl(job.id, { action: "resume", by: "U5", at: 14 })).toEqual({
          kind: "finished",
          status: "aborted",
        });
        await expectCode(
          store.requestControl("nope", { action: "pause", by: "U", at: 1 }),
          ErrorCode.JobNotFound,
        );
      });

      it("orders requests by a sequence number, not by their wall-clock `at` (replicas' clocks disagree)", async () => {
        const job = aJob();
        await store.createJob(job);
        await h.replica.requestControl(job.id, { action: "pause", by: "U1", at: 5000 });
        const later = await store.requestControl(job.id, { action: "resume", by: "U2", at: 1000 });
        expect(later).toMatchObject({ kind: "recorded", control: { pause: false, seq: 2, at: 1000 } });
      });
    });

    describe("slack messages", () => {
      it("records the thread and message ts values beside the body: a checkpoint keeps them, later values win", async () => {
        const job = { ...aJob(), thread: null };
        await store.createJob(job);
        const lease = await leaseFor(store, job);
        await h.replica.recordSlackMessages(job.id, {
          thread: { channel: "C1", ts: "1.0001" },
          messages: { "job:step:1": "1.0002" },
        });
        await store.recordSlackMessages(job.id, {
          messages: { "job:step:1": "1.0003", "job:step:2": "1.0004" },
        });
        await store.saveJob(lease, { ...job, state: { step: 3 } });
        const loaded = await store.loadJob(job.id);
        expect(loaded.thread).toEqual({ channel: "C1", ts: "1.0001" });
        expect(loaded.messages).toEqual({ "job:step:1": "1.0003", "job:step:2": "1.0004" });
        expect((await store.listJobs()).find((j) => j.id === job.id)?.messages).toEqual(loaded.messages);
        await expectCode(store.recordSlackMessages("nope", { messages: { a: "1" } }), ErrorCode.JobNotFound);
      });
    });

    describe("audit and history", () => {
      it("reads the audit trail in append order", async () => {
        const actions = ["requested", "approved", "restart-issued", "step-settled", "succeeded"];
        await store.createJob(aJob({ id: "job-1" }));
        for (const [i, action] of actions.entries()) {
          await store.appendAudit("job-1", { at: 100 + i, actor: "U1", action, detail: `#${i}` });
        }
        const audit = await h.replica.readAudit("job-1");
        expect(audit.map((e) => [e.action, e.at, e.detail])).toEqual(
          actions.map((a, i) => [a, 100 + i, `#${i}`]),
        );
        expect(new Set(audit.map((e) => e.id)).size).toBe(actions.length);
        expect(await store.readAudit("job-none")).toEqual([]);
      });

      it("keeps only the newest N history entries, newest first", async () => {
        const capped = await factory({ historyLimit: 3 });
        extra.push(capped);
        for (let i = 1; i <= 5; i++) await capped.store.pushHistory("prod", aHistoryEntry(`job-${i}`));
        expect((await capped.store.history("prod", 10)).map((e) => e.jobId)).toEqual([
          "job-5",
          "job-4",
          "job-3",
        ]);
        expect((await capped.store.history("prod", 2)).map((e) => e.jobId)).toEqual(["job-5", "job-4"]);
        expect(await capped.store.history("stage", 10)).toEqual([]);
      });
    });

    it("rejects pending waits on close, and close is idempotent", async () => {
      const job = aJob();
      await store.createJob(job);
      const wait = store.waitForDecision(job.id, "ap-x", {
        signal: new AbortController().signal,
        pollMs: 10_000,
      });
      const closing = store.close();
      expect(store.close()).toBe(closing);
      await closing;
      await expect(wait).rejects.toSatisfy((e: unknown) => isAppError(e, ErrorCode.StoreUnavailable));
    });

    it("answers ping", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
