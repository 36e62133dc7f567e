import { beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, isAppError } from "../../../src/core/errors.js";
import type { Decision } from "../../../src/core/rollout/approval-types.js";
import type { DecisionRecord, JobRecord } from "../../../src/jobs/store/job-record.js";
import type { JobStore } from "../../../src/jobs/store/job-store.js";
import { waitFor } from "../../support/wait-for.js";
import { aHistoryEntry, aJob } from "./job-fixtures.js";
import {
  type ContractContext,
  expectCode,
  type JobStoreHarness,
  leaseFor,
  NEVER_POLL_MS,
} from "./job-store-contract-support.js";

/** Approval decisions and their waiters, audit and history, close and ping. */
export function decisionAndAuditContract(t: ContractContext): void {
  let h: JobStoreHarness;
  let store: JobStore;
  beforeEach(() => {
    ({ h, store } = t);
  });
  const { factory, extra } = t;

  describe("approvals", () => {
    async function awaiting(approvalId: string): Promise<JobRecord> {
      const job = aJob();
      await store.createJob(job);
      const lease = await leaseFor(store, job);
      const next: JobRecord = {
        ...job,
        status: "awaiting-approval",
        pendingApproval: { id: approvalId, kind: "eager-window" },
      };
      await store.saveJob(lease, next);
      return next;
    }
    const decision = (by: string, d: Decision = "approve"): DecisionRecord => ({
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
      let woken: DecisionRecord | undefined;
      const wait = store.waitForDecision(job.id, "ap-3", {
        signal: controller.signal,
        pollMs: NEVER_POLL_MS,
      });
      void wait.then((d) => {
        woken = d;
      });
      await waitFor("the waiter to listen for wake-ups", async () => (await h.decisionListeners(job.id)) > 0);
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
}
