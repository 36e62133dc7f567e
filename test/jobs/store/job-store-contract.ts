import { afterEach, beforeEach, describe } from "vitest";
import { decisionAndAuditContract } from "./job-store-contract-decisions.js";
import { lockContract } from "./job-store-contract-locks.js";
import { recordContract } from "./job-store-contract-records.js";
import { reportClaimContract } from "./job-store-contract-reports.js";
import type { ContractContext, JobStoreFactory } from "./job-store-contract-support.js";

export type { HarnessOptions, JobStoreFactory, JobStoreHarness } from "./job-store-contract-support.js";

/** The behaviour every JobStore adapter must have, in parts that follow the store's own (job-store.ts). */
export function jobStoreContract(name: string, factory: JobStoreFactory): void {
  describe(`JobStore contract: ${name}`, () => {
    // Filled before each test; the parts read it in their own beforeEach, which runs after this one.
    const t = { factory, extra: [] } as unknown as ContractContext;
    beforeEach(async () => {
      t.h = await factory();
      t.store = t.h.store;
    });
    afterEach(async () => {
      await t.h.cleanup();
      for (const other of t.extra.splice(0)) await other.cleanup();
    });

    lockContract(t);
    recordContract(t);
    reportClaimContract(t);
    decisionAndAuditContract(t);
  });
}
