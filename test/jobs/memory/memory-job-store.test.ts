import { createMemoryJobData } from "../../../src/jobs/memory/memory-job-data.js";
import { createMemoryJobStore } from "../../../src/jobs/memory/memory-job-store.js";
import { jobStoreContract } from "../store/job-store-contract.js";

jobStoreContract("memory", async (options = {}) => {
  const data = createMemoryJobData();
  const store = createMemoryJobStore({ data, ...options });
  const replica = createMemoryJobStore({ data, ...options });
  return {
    store,
    replica,
    async corruptRecord(jobId, text) {
      const job = data.jobs.get(jobId);
      if (job === undefined) throw new Error(`no job ${jobId}`);
      job.fields = { ...job.fields, record: text };
    },
    async deleteLockKey(cluster) {
      data.locks.delete(cluster);
    },
    async decisionListeners(jobId) {
      return data.waiters.get(jobId)?.size ?? 0;
    },
    async cleanup() {
      await store.close();
      await replica.close();
    },
  };
});
