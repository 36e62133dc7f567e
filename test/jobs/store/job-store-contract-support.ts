import { pino } from "pino";
import { type AppError, type ErrorCode, isAppError } from "../../../src/core/errors.js";
import type { JobRecord } from "../../../src/jobs/store/job-record.js";
import type { JobStore, Lease } from "../../../src/jobs/store/job-store.js";
import { waitFor } from "../../support/wait-for.js";

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

/** What the parts of the contract share: the harness of the test running (set before each), and the factory. */
export interface ContractContext {
  h: JobStoreHarness;
  store: JobStore;
  readonly factory: JobStoreFactory;
  /** Further harnesses a test made; cleaned up after it. */
  readonly extra: JobStoreHarness[];
}

export const TTL = 300;
/** A poll interval no test waits out: a waiter given it only ever wakes up by a wake-up. */
export const NEVER_POLL_MS = 2_147_483_647;
export const silent = pino({ level: "silent" });

export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isAppError(error, code)) throw new Error(`expected AppError ${code}, got ${String(error)}`);
  return error;
}

/** Waits until nobody holds the cluster's lock (its lease expired: real time, the backend's clock). */
export async function lockExpired(store: JobStore, cluster: string, what: string): Promise<void> {
  await waitFor(what, async () => (await store.readLock(cluster)) === null, { timeoutMs: 5000 });
}

export async function leaseFor(
  store: JobStore,
  job: JobRecord,
  owner = "bot-a",
  ttlMs = TTL,
): Promise<Lease> {
  const result = await store.acquireLock(job.cluster, { jobId: job.id, owner, ttlMs });
  if (result.kind !== "acquired") throw new Error(`lock held by ${result.holder.jobId}`);
  return result.lease;
}
