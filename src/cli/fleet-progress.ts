import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { createLockKeeper } from "../jobs/runner/lock-keeper.js";
import {
  type FleetClusterStatus,
  type FleetRunRecord,
  type FleetStageStatus,
  fleetLockName,
  resumeFrom,
} from "../jobs/store/fleet-record.js";
import type { JobStore } from "../jobs/store/job-store.js";

/** What a fleet run keeps of its own state in the store, for `fleet status`, `fleet abort` and a rerun's resume. */
export type FleetProgressStore = Pick<
  JobStore,
  "acquireLock" | "renewLock" | "releaseLock" | "saveFleetRun" | "loadFleetRun" | "fleetAbortRequest"
>;

export interface FleetProgress {
  readonly record: FleetRunRecord;
  /** The stage (from 0) this run starts with: after the stages an earlier run of the same version finished. */
  readonly firstStage: number;
  /** The earlier run it resumes, or null. */
  readonly resumed: FleetRunRecord | null;
  /** Aborted when someone aborts the fleet (`fleet abort`), the fleet's lock is lost, or the process is stopped. */
  readonly signal: AbortSignal;
  /** Who aborted the fleet, once someone did. */
  abortedBy(): { by: string; at: number } | null;
  /** Looks for an abort now (not at the next poll): a cluster that just stopped may have been aborted by it. */
  checkAbort(): Promise<{ by: string; at: number } | null>;
  stage(index: number, status: FleetStageStatus): void;
  cluster(stage: number, name: string, status: FleetClusterStatus): void;
  finish(status: "succeeded" | "failed" | "aborted", reason: string): void;
  /** Writes the last change, stops watching and releases the fleet's lock. */
  close(): Promise<void>;
}

export interface OpenFleetProgressOptions {
  readonly store: FleetProgressStore;
  readonly fleet: string;
  readonly stages: readonly (readonly string[])[];
  readonly target: string;
  readonly requestedBy: string;
  readonly owner: string;
  readonly lockTtlMs: number;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** How often a fleet abort is looked for. */
  readonly abortPollMs?: number;
  /** A store write that failed (said once; the fleet goes on: its clusters' rollouts have their own records). */
  readonly warn: (line: string) => void;
}

export type OpenFleetProgress =
  | { readonly kind: "ok"; readonly progress: FleetProgress }
  | { readonly kind: "busy"; readonly message: string };

/**
 * Takes the fleet's lock (one run of a fleet at a time, across processes), reads the fleet's last run to resume it,
 * and keeps the new run's record current: every stage's and cluster's status, written as it changes.
 */
export async function openFleetProgress(o: OpenFleetProgressOptions): Promise<OpenFleetProgress> {
  const id = `fl-${randomUUID().slice(0, 8)}`;
  const lock = fleetLockName(o.fleet);
  const acquired = await o.store.acquireLock(lock, { jobId: id, owner: o.owner, ttlMs: o.lockTtlMs });
  if (acquired.kind === "held") {
    const h = acquired.holder;
    return {
      kind: "busy",
      message: `fleet ${o.fleet} is already running (run ${h.jobId} by ${h.owner} since ${new Date(h.since).toISOString()}); see: connect-roll fleet status ${o.fleet}`,
    };
  }
  const lease = acquired.lease;
  const stop = new AbortController();
  const keeper = createLockKeeper({
    store: o.store,
    lease,
    ttlMs: o.lockTtlMs,
    logger: o.logger,
    onLost: (reason) => stop.abort(reason),
  });
  const previous = await o.store.loadFleetRun(o.fleet).catch((err: unknown) => {
    o.warn(
      `the fleet's last run could not be read (${(err as Error).message}); starting afresh from stage 1`,
    );
    return null;
  });
  const from = resumeFrom(previous, o.stages, o.target);
  const now = Date.now();
  const record: FleetRunRecord = {
    v: 1,
    id,
    fleet: o.fleet,
    target: o.target,
    requestedBy: o.requestedBy,
    owner: o.owner,
    startedAt: now,
    updatedAt: now,
    resumedFrom: from === null ? null : (previous?.id ?? null),
    status: "running",
    reason: null,
    stages: o.stages.map((clusters, i) => {
      const done = from !== null && i < from;
      const status = done ? "succeeded" : "pending";
      return { clusters: clusters.map((name) => ({ name, status })), status };
    }),
  };
  let aborted: { by: string; at: number } | null = null;
  let writes = Promise.resolve();
  let warned = false;
  const save = () => {
    // Only the holder of the fleet's lock writes the record: once the lock is lost, another run may own it.
    if (keeper.signal.aborted) return;
    record.updatedAt = Date.now();
    const snapshot = structuredClone(record);
    writes = writes.then(() =>
      o.store.saveFleetRun(snapshot).catch((err: unknown) => {
        if (!warned) o.warn(`could not record the fleet's progress in the store: ${(err as Error).message}`);
        warned = true;
      }),
    );
  };
  const checkAbort = async () => {
    const request = await o.store.fleetAbortRequest(o.fleet, id).catch(() => null);
    if (request !== null && aborted === null) {
      aborted = request;
      stop.abort(new Error(`fleet aborted by ${request.by}`));
    }
    return aborted;
  };
  const poll = setInterval(() => void checkAbort(), o.abortPollMs ?? 1_000);
  poll.unref();
  save();
  const progress: FleetProgress = {
    record,
    firstStage: from ?? 0,
    resumed: from === null ? null : previous,
    signal: AbortSignal.any([stop.signal, o.signal]),
    abortedBy: () => aborted,
    checkAbort,
    stage(index, status) {
      const stage = record.stages[index];
      if (stage === undefined) return;
      stage.status = status;
      save();
    },
    cluster(index, name, status) {
      const entry = record.stages[index]?.clusters.find((c) => c.name === name);
      if (entry === undefined) return;
      entry.status = status;
      save();
    },
    finish(status, reason) {
      record.status = status;
      record.reason = reason;
      save();
    },
    async close() {
      clearInterval(poll);
      await writes;
      keeper.stop();
      if (!keeper.signal.aborted) await o.store.releaseLock(lease).catch(() => undefined);
    },
  };
  return { kind: "ok", progress };
}
