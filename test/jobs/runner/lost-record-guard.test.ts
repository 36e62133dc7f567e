import pino from "pino";
import { describe, expect, it } from "vitest";
import { createMemoryJobData, type MemoryJobData } from "../../../src/jobs/memory/memory-job-data.js";
import { createMemoryJobStore } from "../../../src/jobs/memory/memory-job-store.js";
import { createLostRecordGuard, type LostRecordGuard } from "../../../src/jobs/runner/lost-record-guard.js";
import type { JobRecord } from "../../../src/jobs/store/job-record.js";
import type { JobStore } from "../../../src/jobs/store/job-store.js";
import { aJob } from "../store/job-fixtures.js";

const logger = pino({ level: "silent" });
const GRACE_MS = 4_000;

const nowhere = () => false;

/** Two replicas over one store, each with its own guard and a clock the test moves. */
function world() {
  const data = createMemoryJobData();
  let now = 1_000_000;
  const store = createMemoryJobStore({ data, now: () => now });
  const guard = (owner: string) =>
    createLostRecordGuard({ store, now: () => now, logger, owner, graceMs: GRACE_MS, lockTtlMs: 5_000 });
  return {
    data,
    store,
    guard,
    advance: (ms: number) => {
      now += ms;
    },
    /** A guard of `owner` that has seen `jobs` (stored first) at one pass. */
    async seen(owner: string, ...jobs: JobRecord[]) {
      for (const job of jobs) await store.createJob(job);
      const g = guard(owner);
      await g.sweep(nowhere);
      return g;
    },
    /** Redis loses everything, and the guards' next pass finds the records missing. */
    async lose(...guards: LostRecordGuard[]) {
      emptyStore(data);
      for (const g of guards) await g.sweep(nowhere);
    },
    /** Another replica's runner ends `job` with `status` (a fenced checkpoint under the cluster's lock). */
    async finish(job: JobRecord, status: JobRecord["status"]) {
      const lease = await store.acquireLock(job.cluster, { jobId: job.id, owner: "bot-a", ttlMs: 10_000 });
      if (lease.kind !== "acquired") throw new Error("lock not acquired");
      await store.saveJob(lease.lease, { ...job, status });
    },
  };
}

/** What a Redis restart without persistence does: every key is gone. */
function emptyStore(data: MemoryJobData): void {
  for (const map of [data.jobs, data.locks, data.fences, data.audit, data.history, data.reportClaims])
    map.clear();
}

async function missing(store: JobStore, id: string): Promise<boolean> {
  return store.loadJob(id).then(
    () => false,
    () => true,
  );
}

describe("the lost-record guard", () => {
  it("writes back an unfinished record the store lost, once it stayed missing for the grace, with its control, thread and an audit line", async () => {
    const w = world();
    const job = aJob({ owner: "bot-dead", fence: 7 });
    await w.store.createJob(job);
    await w.store.requestControl(job.id, { action: "pause", by: "U9", at: 5 });
    await w.store.recordSlackMessages(job.id, { messages: { "step-1": "1700000000.000200" } });
    const guard = w.guard("bot-b");
    expect(await guard.sweep(nowhere)).toEqual([]);

    emptyStore(w.data);
    expect(await guard.sweep(nowhere)).toEqual([]);
    w.advance(GRACE_MS - 1);
    expect(await guard.sweep(nowhere)).toEqual([]);
    expect(await missing(w.store, job.id)).toBe(true);
    w.advance(1);
    expect(await guard.sweep(nowhere)).toEqual([job.id]);

    const back = await w.store.loadJob(job.id);
    expect(back).toMatchObject({ id: job.id, status: "running", owner: "bot-dead", state: job.state });
    // Marked restored, so a worker its lost part restarted is reported as such when it is found restarted.
    expect((back.state as { recordRestored?: unknown }).recordRestored).toEqual({
      at: expect.any(Number),
      checkpointAt: (job.state as { updatedAt?: unknown }).updatedAt ?? null,
    });
    expect(back.thread).toEqual(job.thread);
    expect(back.messages).toEqual({ "step-1": "1700000000.000200" });
    expect(back.control).toMatchObject({ pause: true, abort: false, by: "U9" });
    const audit = await w.store.readAudit(job.id);
    expect(audit.map((e) => e.action)).toEqual(["record-restored"]);
    // Free to take over: the orphan sweep resumes it.
    expect((await w.store.findOrphans()).map((j) => j.id)).toEqual([job.id]);
  });

  it("leaves a record lost when its runner marked it so (that runner told its thread to rerun)", async () => {
    const w = world();
    const job = aJob();
    const guard = await w.seen("bot-b", job);
    emptyStore(w.data);
    await w.store.markRecordLost(job.cluster, job.id, 60_000);
    await guard.sweep(nowhere);
    w.advance(GRACE_MS);
    expect(await guard.sweep(nowhere)).toEqual([]);
    expect(await missing(w.store, job.id)).toBe(true);
    // And it is forgotten: later sweeps do not write it back either.
    w.advance(GRACE_MS);
    expect(await guard.sweep(nowhere)).toEqual([]);
  });

  it("leaves it lost when a pass saw the mark, though a second restart of Redis took the mark too", async () => {
    const w = world();
    const job = aJob();
    const guard = await w.seen("bot-b", job);
    emptyStore(w.data);
    await w.store.markRecordLost(job.cluster, job.id, 60_000);
    await guard.sweep(nowhere);
    emptyStore(w.data);
    w.data.lostMarks.clear();
    w.advance(GRACE_MS);
    expect(await guard.sweep(nowhere)).toEqual([]);
    expect(await missing(w.store, job.id)).toBe(true);
  });

  it("leaves it lost when the cluster moved on: a rerun's job on record, or the cluster's lock held", async () => {
    const w = world();
    const lost = aJob();
    const other = aJob({ cluster: "stage" });
    const guard = await w.seen("bot-b", lost, other);
    await w.lose(guard);
    w.advance(GRACE_MS);
    // The rerun finished before the grace ran out; the other cluster's lock is held by someone who started anew.
    const rerun = aJob({ status: "succeeded", createdAt: lost.createdAt + 1 });
    await w.store.createJob(rerun);
    await w.store.acquireLock("stage", { jobId: "cr-new", owner: "bot-c", ttlMs: 60_000 });
    expect(await guard.sweep(nowhere)).toEqual([]);
    expect(await missing(w.store, lost.id)).toBe(true);
    expect(await missing(w.store, other.id)).toBe(true);
  });

  it("keeps only a cluster's newest unfinished record: an older one is never written back", async () => {
    const w = world();
    const older = aJob({ createdAt: 1 });
    const newer = aJob({ createdAt: 2 });
    const guard = await w.seen("bot-b", older, newer);
    await w.lose(guard);
    w.advance(GRACE_MS);
    expect(await guard.sweep(nowhere)).toEqual([newer.id]);
    expect(await missing(w.store, older.id)).toBe(true);
  });

  it("forgets a record that finished (still on record), and one that came back before the grace ran out", async () => {
    const w = world();
    const finishing = aJob();
    const blinking = aJob({ cluster: "stage" });
    const guard = await w.seen("bot-b", finishing, blinking);
    await w.finish(finishing, "succeeded");
    const blinked = w.data.jobs.get(blinking.id);
    w.data.jobs.delete(blinking.id);
    await guard.sweep(nowhere);
    if (blinked) w.data.jobs.set(blinking.id, blinked);
    w.advance(GRACE_MS);
    expect(await guard.sweep(nowhere)).toEqual([]);
    expect((await w.store.loadJob(finishing.id)).status).toBe("succeeded");
    expect(await w.store.readAudit(blinking.id)).toEqual([]);
  });

  it("does not touch a job this process runs (its own runner handles a vanished record)", async () => {
    const w = world();
    const job = aJob();
    const guard = await w.seen("bot-a", job);
    emptyStore(w.data);
    const mine = (id: string) => id === job.id;
    await guard.sweep(mine);
    w.advance(2 * GRACE_MS);
    expect(await guard.sweep(mine)).toEqual([]);
    expect(await missing(w.store, job.id)).toBe(true);
  });

  it("never writes back a job this process finished and forgot, though Redis lost it before the next sweep", async () => {
    const w = world();
    const job = aJob();
    const guard = await w.seen("bot-a", job);
    guard.forget(job.id);
    await w.lose(guard);
    w.advance(GRACE_MS);
    expect(await guard.sweep(nowhere)).toEqual([]);
    expect(await missing(w.store, job.id)).toBe(true);
  });

  it("never writes back a job another replica finished: the store tells every guard", async () => {
    const w = world();
    const job = aJob();
    const guard = await w.seen("bot-b", job);
    const lease = await w.store.acquireLock(job.cluster, { jobId: job.id, owner: "bot-a", ttlMs: 10_000 });
    if (lease.kind !== "acquired") throw new Error("lock not acquired");
    await w.store.saveJob(lease.lease, { ...job, status: "aborted" });
    await w.lose(guard);
    w.advance(GRACE_MS);
    expect(await guard.sweep(nowhere)).toEqual([]);
    expect(await missing(w.store, job.id)).toBe(true);
    guard.close();
  });

  it("is written back once when two replicas' guards both remember it", async () => {
    const w = world();
    const job = aJob();
    const b = await w.seen("bot-b", job);
    const c = await w.seen("bot-c");
    await w.lose(b, c);
    w.advance(GRACE_MS);
    const restored = [...(await b.sweep(nowhere)), ...(await c.sweep(nowhere))];
    expect(restored).toEqual([job.id]);
    const audit = await w.store.readAudit(job.id);
    expect(audit.filter((e) => e.action === "record-restored")).toHaveLength(1);
  });
});
