import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import {
  type FleetClusterStatus,
  type FleetRunRecord,
  type FleetStageStatus,
  fleetLockName,
  resumeFrom,
} from "../store/fleet-record.js";
import type { JobStore, LockHolder } from "../store/job-store.js";
import { createLockKeeper } from "./lock-keeper.js";

/** What a fleet run keeps of its own state in the store, for `fleet status`, `fleet abort` and a rerun's resume. */
export type FleetProgressStore = Pick<
  JobStore,
  "acquireLock" | "renewLock" | "releaseLock" | "saveFleetRun" | "loadFleetRun" | "fleetAbortRequest"
>;

export interface FleetProgress {
  readonly record: FleetRunRecord;
  /** The stage (from 0) this run starts with: after the stages an earlier run of the same version finished. */
  readonly firstStage: number;
  /** This process took the run over from an owner that is gone (the same run goes on). */
  readonly takenOver: boolean;
  /** The earlier run it resumes, or null. */
  readonly resumed: FleetRunRecord | null;
  /** Aborted when someone aborts the fleet (`fleet abort`), the fleet's lock is lost, or the process is stopped. */
  readonly signal: AbortSignal;
  /** Who aborted the fleet, once someone did. */
  abortedBy(): { by: string; at: number } | null;
  /** Looks for an abort now (not at the next poll): a cluster that just stopped may have been aborted by it. */
  checkAbort(): Promise<{ by: string; at: number } | null>;
  stage(index: number, status: FleetStageStatus): void;
  /** A cluster's status, and its rollout job once started (kept when not given). */
  cluster(stage: number, name: string, status: FleetClusterStatus, job?: string): void;
  finish(status: "succeeded" | "failed" | "aborted", reason: string): void;
  /** The fleet's lock was lost: another process may own the run now (nothing more is written). */
  lockLost(): boolean;
  /**
   * Writes nothing more, so the run stays as recorded, marked running, for another process to take over once the lock
   * is released (a bot replica shutting down).
   */
  abandon(): void;
  /** Resolves once every change so far is written: true when they all landed (and this process may still write). */
  flush(): Promise<boolean>;
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
  /** The Slack thread a fleet started in Slack reports to. */
  readonly thread?: { readonly channel: string; readonly ts: string } | null;
  /**
   * A run whose owner is gone, to go on with as the same run (a bot replica taking a Slack fleet over): its stages as
   * recorded, its clusters' jobs waited for, not restarted.
   */
  readonly takeOver?: FleetRunRecord;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** The new run's id (default a fresh `fl-…`); ignored when taking a run over. */
  readonly id?: string;
  /** Told every change of the record, as it is saved (a Slack fleet's parent message follows it). */
  readonly onChange?: (record: FleetRunRecord) => void;
  /** How often a fleet abort is looked for. */
  readonly abortPollMs?: number;
  /** A store write that failed (said once; the fleet goes on: its clusters' rollouts have their own records). */
  readonly warn: (line: string) => void;
}

export type OpenFleetProgress =
  | { readonly kind: "ok"; readonly progress: FleetProgress }
  | { readonly kind: "busy"; readonly message: string; readonly holder: LockHolder }
  /** The run to take over changed (ended, or moved on) between the look and the lock: nothing to take over. */
  | { readonly kind: "gone" };

/**
 * Takes the fleet's lock (one run of a fleet at a time, across processes), reads the fleet's last run to resume it,
 * and keeps the new run's record current: every stage's and cluster's status, written as it changes.
 */
export async function openFleetProgress(o: OpenFleetProgressOptions): Promise<OpenFleetProgress> {
  const id = o.takeOver?.id ?? o.id ?? newFleetRunId();
  const lock = fleetLockName(o.fleet);
  const acquired = await o.store.acquireLock(lock, { jobId: id, owner: o.owner, ttlMs: o.lockTtlMs });
  if (acquired.kind === "held") {
    const h = acquired.holder;
    return {
      kind: "busy",
      message: `fleet ${o.fleet} is already running (run ${h.jobId} by ${h.owner} since ${new Date(h.since).toISOString()}); see: connect-roll fleet status ${o.fleet}`,
      holder: h,
    };
  }
  const lease = acquired.lease;
  // A run to take over is read again under the lock: it may have ended, or moved on, since it was looked at.
  if (o.takeOver !== undefined) {
    const now = await o.store.loadFleetRun(o.fleet).catch(() => null);
    if (
      now === null ||
      now.id !== o.takeOver.id ||
      now.status !== "running" ||
      now.updatedAt !== o.takeOver.updatedAt
    ) {
      await o.store.releaseLock(lease).catch(() => undefined);
      return { kind: "gone" };
    }
  }
  const stop = new AbortController();
  const keeper = createLockKeeper({
    store: o.store,
    lease,
    ttlMs: o.lockTtlMs,
    logger: o.logger,
    onLost: (reason) => stop.abort(reason),
  });
  const opened = o.takeOver === undefined ? await freshRecord(o, id) : takenOver(o.takeOver, o.owner);
  const { record, from, previous } = opened;
  let aborted: { by: string; at: number } | null = null;
  let writes = Promise.resolve();
  let warned = false;
  let abandoned = false;
  let closed = false;
  let lastWriteFailed = false;
  const save = () => {
    // Only the holder of the fleet's lock writes the record: once the lock is lost (or released), another run may own it.
    if (keeper.signal.aborted || abandoned || closed) return;
    record.updatedAt = Date.now();
    const snapshot = structuredClone(record);
    o.onChange?.(snapshot);
    writes = writes.then(() =>
      o.store.saveFleetRun(snapshot).then(
        () => {
          lastWriteFailed = false;
        },
        (err: unknown) => {
          lastWriteFailed = true;
          if (!warned)
            o.warn(`could not record the fleet's progress in the store: ${(err as Error).message}`);
          warned = true;
        },
      ),
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
    takenOver: o.takeOver !== undefined,
    resumed: o.takeOver === undefined && from !== null ? previous : null,
    signal: AbortSignal.any([stop.signal, o.signal]),
    abortedBy: () => aborted,
    checkAbort,
    stage(index, status) {
      const stage = record.stages[index];
      if (stage === undefined) return;
      stage.status = status;
      save();
    },
    cluster(index, name, status, job) {
      const entry = record.stages[index]?.clusters.find((c) => c.name === name);
      if (entry === undefined) return;
      entry.status = status;
      if (job !== undefined) entry.job = job;
      save();
    },
    finish(status, reason) {
      record.status = status;
      record.reason = reason;
      save();
    },
    lockLost: () => keeper.signal.aborted,
    abandon() {
      abandoned = true;
    },
    flush: () => writes.then(() => !lastWriteFailed && !keeper.signal.aborted && !abandoned && !closed),
    async close() {
      clearInterval(poll);
      await writes;
      closed = true;
      stop.abort(new Error("the fleet run's progress is closed"));
      keeper.stop();
      if (!keeper.signal.aborted) await o.store.releaseLock(lease).catch(() => undefined);
    },
  };
  return { kind: "ok", progress };
}

/** `fl-` and 8 hex digits. */
export const newFleetRunId = (): string => `fl-${randomUUID().slice(0, 8)}`;

interface Opened {
  readonly record: FleetRunRecord;
  /** The first stage to roll, or null from the first. */
  readonly from: number | null;
  readonly previous: FleetRunRecord | null;
}

/** A new run's record: the stages an earlier run of the same version and stages finished are marked done. */
async function freshRecord(o: OpenFleetProgressOptions, id: string): Promise<Opened> {
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
    thread: o.thread ?? null,
  };
  return { record, from, previous };
}

/** A run taken over: as recorded, owned by this process from now, from its first stage not done. */
function takenOver(run: FleetRunRecord, owner: string): Opened {
  const record = { ...structuredClone(run), owner };
  const first = record.stages.findIndex((s) => s.status !== "succeeded");
  return { record, from: first === -1 ? record.stages.length : first, previous: null };
}
