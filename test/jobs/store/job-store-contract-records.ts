import { beforeEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/core/errors.js";
import type { JobStore } from "../../../src/jobs/store/job-store.js";
import { aJob } from "./job-fixtures.js";
import {
  type ContractContext,
  expectCode,
  type JobStoreHarness,
  leaseFor,
  lockExpired,
  TTL,
} from "./job-store-contract-support.js";

/** Job records, takeovers and orphans, control requests, Slack message ts. */
export function recordContract(t: ContractContext): void {
  let h: JobStoreHarness;
  let store: JobStore;
  beforeEach(() => {
    ({ h, store } = t);
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
      expect((await store.listJobs({ unfinishedOnly: true, cluster: "prod" })).map((j) => j.id)).toEqual([]);
    });

    it("lists only the jobs created since a time, from the index, with the other filters", async () => {
      const old = aJob({ createdAt: 1_000, cluster: "prod", status: "succeeded" });
      const edge = aJob({ createdAt: 2_000, cluster: "stage", status: "failed" });
      const recent = aJob({ createdAt: 3_000, cluster: "prod" });
      for (const job of [recent, old, edge]) await store.createJob(job);
      expect((await store.listJobs({ createdSince: 2_000 })).map((j) => j.id)).toEqual([edge.id, recent.id]);
      expect((await h.replica.listJobs({ createdSince: 2_001, cluster: "prod" })).map((j) => j.id)).toEqual([
        recent.id,
      ]);
      expect((await store.listJobs({ createdSince: 0, unfinishedOnly: true })).map((j) => j.id)).toEqual([
        recent.id,
      ]);
      expect(await store.listJobs({ createdSince: 3_001 })).toEqual([]);
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
}
