import type { LockReader } from "../jobs/store/store-roles.js";
import type { LockFacts } from "./refusals.js";

/** Who holds the cluster's lock (with the requester and thread of its job when readable), or null when it is free. */
export async function readLockFacts(store: LockReader, cluster: string): Promise<LockFacts | null> {
  const holder = await store.readLock(cluster);
  if (holder === null) return null;
  const job = await store.loadJob(holder.jobId).catch(() => null);
  return {
    jobId: holder.jobId,
    owner: holder.owner,
    since: holder.since,
    requestedBy: job === null ? null : job.requestedBy,
    thread: job?.thread ?? null,
  };
}
