import { beforeEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/core/errors.js";
import type { FleetRunRecord } from "../../../src/jobs/store/fleet-record.js";
import type { JobStore } from "../../../src/jobs/store/job-store.js";
import { waitFor } from "../../support/wait-for.js";
import { aJob } from "./job-fixtures.js";
import { type ContractContext, expectCode, type JobStoreHarness } from "./job-store-contract-support.js";

/** A claim no test waits out. */
const LONG_MS = 60_000;

/**
 * Claims on finished jobs' final reports (the one replica that posts a report no replica posted), and the marks of
 * records a runner found gone (a replica that remembers the record then leaves it lost).
 */
export function reportClaimContract(t: ContractContext): void {
  let h: JobStoreHarness;
  let store: JobStore;
  beforeEach(() => {
    ({ h, store } = t);
  });

  describe("report claims", () => {
    it("lets exactly one of two concurrent claimers win; the claim then refuses everyone, its owner included", async () => {
      const job = aJob({ status: "succeeded" });
      await store.createJob(job);
      const claims = await Promise.all([
        store.claimReport(job.id, "bot-a", LONG_MS),
        h.replica.claimReport(job.id, "bot-b", LONG_MS),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.claimReport(job.id, "bot-a", LONG_MS)).toBe(false);
      expect(await h.replica.claimReport(job.id, "bot-b", LONG_MS)).toBe(false);
      expect(await h.replica.claimReport(job.id, "bot-c", LONG_MS)).toBe(false);
    });

    it("lapses after its ttl: the next claimer wins, and holds it in turn", async () => {
      const job = aJob({ status: "failed" });
      await store.createJob(job);
      expect(await store.claimReport(job.id, "bot-a", 200)).toBe(true);
      expect(await h.replica.claimReport(job.id, "bot-b", 200)).toBe(false);
      // The store's clock (Redis's own, for Redis) lets the claim lapse; the claim that succeeds is the sign.
      await waitFor("the first claim to lapse and bot-b's claim to win", () =>
        h.replica.claimReport(job.id, "bot-b", LONG_MS),
      );
      expect(await store.claimReport(job.id, "bot-a", LONG_MS)).toBe(false);
    });

    it("is per job, leaves the record as it was, and refuses a job that does not exist", async () => {
      const one = aJob({ status: "succeeded" });
      const other = aJob({ status: "succeeded", cluster: "stage" });
      for (const job of [one, other]) await store.createJob(job);
      expect(await store.claimReport(one.id, "bot-a", LONG_MS)).toBe(true);
      expect(await h.replica.claimReport(other.id, "bot-b", LONG_MS)).toBe(true);
      expect(await h.replica.loadJob(one.id)).toEqual(one);
      await expectCode(store.claimReport("nope", "bot-a", LONG_MS), ErrorCode.JobNotFound);
    });
  });

  describe("fleet runs", () => {
    const run = (over: Partial<FleetRunRecord> = {}): FleetRunRecord => ({
      v: 1,
      id: "fl-00000001",
      fleet: "global",
      target: "3.7.3",
      requestedBy: "ops@host (cli)",
      owner: "host:1",
      startedAt: 1,
      updatedAt: 2,
      resumedFrom: null,
      status: "running",
      reason: null,
      stages: [{ clusters: [{ name: "staging", status: "running" }], status: "running" }],
      ...over,
    });

    it("keeps each fleet's latest run, seen by every replica; none before the first", async () => {
      expect(await h.replica.loadFleetRun("global")).toBeNull();
      await store.saveFleetRun(run());
      await store.saveFleetRun(run({ fleet: "other", id: "fl-00000009" }));
      await store.saveFleetRun(run({ status: "failed", reason: "staging did not succeed" }));
      expect(await h.replica.loadFleetRun("global")).toEqual(
        run({ status: "failed", reason: "staging did not succeed" }),
      );
      expect((await h.replica.loadFleetRun("other"))?.id).toBe("fl-00000009");
    });

    it("records a run's abort once: the first request is kept, other runs are not aborted", async () => {
      expect(await store.fleetAbortRequest("global", "fl-00000001")).toBeNull();
      await store.requestFleetAbort("global", "fl-00000001", { by: "U1", at: 10 });
      await h.replica.requestFleetAbort("global", "fl-00000001", { by: "U2", at: 20 });
      expect(await h.replica.fleetAbortRequest("global", "fl-00000001")).toEqual({ by: "U1", at: 10 });
      expect(await store.fleetAbortRequest("global", "fl-00000002")).toBeNull();
    });

    it("records a stage's answer once per run and stage: the first answer is kept", async () => {
      expect(await store.fleetStageDecision("global", "fl-00000001", 1)).toBeNull();
      await store.decideFleetStage("global", "fl-00000001", 1, { decision: "approve", by: "U1", at: 10 });
      await h.replica.decideFleetStage("global", "fl-00000001", 1, { decision: "abort", by: "U2", at: 20 });
      expect(await h.replica.fleetStageDecision("global", "fl-00000001", 1)).toEqual({
        decision: "approve",
        by: "U1",
        at: 10,
      });
      expect(await store.fleetStageDecision("global", "fl-00000001", 2)).toBeNull();
      expect(await store.fleetStageDecision("global", "fl-00000002", 1)).toBeNull();
    });

    it("keeps a Slack fleet's thread and each cluster's rollout job", async () => {
      const withThread = run({ thread: { channel: "C1", ts: "1.2" } });
      const first = withThread.stages[0];
      if (first?.clusters[0]) first.clusters[0] = { ...first.clusters[0], job: "cr-00000001" };
      await store.saveFleetRun(withThread);
      expect(await h.replica.loadFleetRun("global")).toEqual(withThread);
    });
  });

  describe("finished jobs told", () => {
    it("tells every replica's listener the id of a job a checkpoint finished, and not of one still running", async () => {
      const job = aJob();
      const other = aJob({ cluster: "stage" });
      for (const j of [job, other]) await store.createJob(j);
      const told: string[] = [];
      const stop = await h.replica.onJobFinished((id) => told.push(id));
      const save = async (j: typeof job, status: typeof job.status) => {
        const acquired = await store.acquireLock(j.cluster, { jobId: j.id, owner: "bot-a", ttlMs: LONG_MS });
        if (acquired.kind !== "acquired") throw new Error("lock not acquired");
        await store.saveJob(acquired.lease, { ...j, status });
        await store.releaseLock(acquired.lease);
      };
      await save(other, "running");
      await save(job, "succeeded");
      await waitFor("the finished job to be told", () => told.includes(job.id));
      expect(told).toEqual([job.id]);
      stop();
    });
  });

  describe("record-lost marks", () => {
    it("needs no record, is seen by every replica, is per job, and lapses after its ttl", async () => {
      expect(await h.replica.recordLostMarked("prod", "gone-1")).toBe(false);
      await store.markRecordLost("prod", "gone-1", 300);
      await store.markRecordLost("prod", "gone-2", LONG_MS);
      expect(await h.replica.recordLostMarked("prod", "gone-1")).toBe(true);
      expect(await h.replica.recordLostMarked("prod", "gone-3")).toBe(false);
      expect(await h.replica.recordLostMarked("stage", "gone-1")).toBe(false);
      await waitFor(
        "the first mark to lapse",
        async () => !(await h.replica.recordLostMarked("prod", "gone-1")),
      );
      expect(await store.recordLostMarked("prod", "gone-2")).toBe(true);
    });
  });
}
