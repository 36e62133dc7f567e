import type { Logger } from "pino";
import { ErrorCode, isAppError } from "../../core/errors.js";
import type { JobRecord } from "../store/job-record.js";
import type { LostRecordStore } from "../store/store-roles.js";

export interface LostRecordGuardOptions {
  readonly store: LostRecordStore;
  readonly now: () => number;
  readonly logger: Logger;
  /** This replica's id (the audit's actor). */
  readonly owner: string;
  /**
   * How long a remembered record must stay missing before it is written back: longer than a live runner needs to
   * notice its record gone (its next lease renewal) and mark it lost.
   */
  readonly graceMs: number;
  /** The lease taken on the record's cluster while it is written back. */
  readonly lockTtlMs: number;
}

export interface LostRecordGuard {
  /**
   * One pass: remembers the unfinished records the store holds now; writes back every remembered record that has
   * been missing for `graceMs` without a record-lost mark, so the orphan sweep that follows takes it over. Returns
   * the ids written back. `runningHere` names jobs this process runs: their own runner handles a vanished record.
   */
  sweep(runningHere: (jobId: string) => boolean): Promise<string[]>;
  /** Forgets a job this process finished: it is never written back as unfinished by this replica. */
  forget(jobId: string): void;
  /** Stops listening for jobs finished elsewhere. */
  close(): void;
}

interface Remembered {
  record: JobRecord;
  /** When this replica first found the record missing, or null while it was there at the last pass. */
  missingSince: number | null;
}

/**
 * Keeps a rollout whose only copies were lost together from being lost silently: a Redis without persistence that
 * restarts (or is flushed) within the lease of a lock holder that crashed at the same time takes both the record and
 * the lease, and no replica would know there is a rollout to resume or report. Every replica remembers the unfinished
 * records of its last sweep (a cluster's newest); one that vanishes is written back (as it was at that sweep) unless
 * its runner is alive and said so in the thread (the record-lost mark, looked for at every pass), or the cluster has
 * moved on meanwhile (a later job on record, or its lock held). The replica that then takes it over resumes from facts: the
 * cluster's versions and process start times say which steps are done, so an older checkpoint restarts nothing twice.
 */
export function createLostRecordGuard(o: LostRecordGuardOptions): LostRecordGuard {
  const log = o.logger.child({ component: "lost-record-guard" });
  const remembered = new Map<string, Remembered>();
  // A job any replica finished is forgotten at once (the store's broadcast): a Redis that loses everything right
  // after a rollout ended must not have it written back as unfinished from an older pass.
  let unlisten: (() => void) | null = null;
  let closed = false;
  void o.store
    .onJobFinished((jobId) => remembered.delete(jobId))
    .then(
      (stop) => {
        if (closed) stop();
        else unlisten = stop;
      },
      (err: unknown) => log.warn({ err }, "not told of finished rollouts; relying on the sweep alone"),
    );

  /** True when the store answers that the record does not exist; null when it could not say. */
  async function missing(id: string): Promise<boolean | null> {
    try {
      await o.store.loadJob(id);
      return false;
    } catch (err) {
      if (isAppError(err, ErrorCode.JobNotFound)) return true;
      log.warn({ err, jobId: id }, "could not read a remembered rollout record; trying at the next sweep");
      return null;
    }
  }

  async function writeBack(seen: JobRecord, missingMs: number): Promise<void> {
    const { control, messages } = seen;
    // Marked restored: its checkpoint may be older than what the rollout did since (the skip says so).
    const state = seen.state;
    const record: JobRecord =
      typeof state === "object" && state !== null
        ? {
            ...seen,
            state: {
              ...(state as Record<string, unknown>),
              recordRestored: {
                at: o.now(),
                checkpointAt: (state as { updatedAt?: unknown }).updatedAt ?? null,
              },
            },
          }
        : seen;
    await o.store.createJob(record);
    // Chat's control requests and the thread's message ts live beside the body: put them back too.
    if (control?.abort)
      await o.store.requestControl(record.id, { action: "abort", by: control.by, at: control.at });
    else if (control?.pause)
      await o.store.requestControl(record.id, { action: "pause", by: control.by, at: control.at });
    if (record.thread !== null || (messages !== undefined && Object.keys(messages).length > 0))
      await o.store.recordSlackMessages(record.id, {
        ...(record.thread === null ? {} : { thread: record.thread }),
        ...(messages === undefined ? {} : { messages }),
      });
    await o.store.appendAudit(record.id, {
      at: o.now(),
      actor: `bot:${o.owner}`,
      action: "record-restored",
      detail: `the store lost job ${record.id} on ${record.cluster} (missing ${Math.round(missingMs / 1000)} s, no runner reported it); ${o.owner} wrote back its record as of its last sweep`,
    });
  }

  /**
   * Writes the record back while holding its cluster's lock (as the record's job): no rollout can start on the
   * cluster meanwhile, and no replica can take the record over before its control request is back. Released at the
   * end, so the orphan sweep takes it over; a cluster that moved on (lock held, a later job) is left alone.
   */
  async function writeBackLocked(record: JobRecord, missingMs: number): Promise<string | null> {
    const acquired = await o.store.acquireLock(record.cluster, {
      jobId: record.id,
      owner: `${o.owner} (restoring a lost record)`,
      ttlMs: o.lockTtlMs,
    });
    if (acquired.kind === "held")
      return `the lock holder ${acquired.holder.owner} (job ${acquired.holder.jobId})`;
    try {
      const later = (await o.store.listJobs({ cluster: record.cluster })).find(
        (j) => j.id !== record.id && j.createdAt >= record.createdAt,
      );
      if (later !== undefined) return `job ${later.id}`;
      await writeBack(record, missingMs);
      return null;
    } finally {
      await o.store.releaseLock(acquired.lease).catch(() => undefined);
    }
  }

  /** One remembered record's pass: keep it for the next, forget it, or it was written back. */
  async function consider(
    id: string,
    entry: Remembered,
    runningHere: (jobId: string) => boolean,
  ): Promise<"keep" | "forget" | "restored"> {
    if (runningHere(id)) return "keep";
    const gone = await missing(id);
    if (gone === null) return "keep";
    // Still on record (finished since, most often): nothing to guard.
    if (!gone) return "forget";
    const at = o.now();
    entry.missingSince ??= at;
    const { cluster } = entry.record;
    // Looked for at every pass while the record is missing, not only at the end of the grace: Redis may lose the
    // mark too (a second restart), after a pass has seen it.
    if (await o.store.recordLostMarked(cluster, id)) {
      log.info(
        { jobId: id, cluster },
        "a vanished rollout record was reported lost by its runner; left lost",
      );
      return "forget";
    }
    if (at - entry.missingSince < o.graceMs) return "keep";
    const superseded = await writeBackLocked(entry.record, at - entry.missingSince);
    if (superseded !== null) {
      log.info({ jobId: id, cluster, by: superseded }, "a vanished rollout record was superseded; left lost");
      return "forget";
    }
    log.warn(
      { jobId: id, cluster },
      "the store lost an unfinished rollout record; written back to be resumed",
    );
    return "restored";
  }

  return {
    async sweep(runningHere) {
      const unfinished = await o.store.listJobs({ unfinishedOnly: true });
      const present = new Set(unfinished.map((job) => job.id));
      const restored: string[] = [];
      for (const [id, entry] of remembered) {
        if (present.has(id)) continue;
        let verdict: "keep" | "forget" | "restored";
        try {
          verdict = await consider(id, entry, runningHere);
        } catch (err) {
          // The store failing again (it has just lost everything): remembered for the next pass.
          log.warn(
            { err, jobId: id },
            "a vanished rollout record could not be dealt with; trying at the next sweep",
          );
          verdict = "keep";
        }
        if (verdict !== "keep") remembered.delete(id);
        if (verdict === "restored") restored.push(id);
      }
      for (const record of unfinished) {
        // One rollout per cluster at a time: a newer one started only once the older one had ended (or was
        // reported lost), so only a cluster's newest unfinished record is kept.
        for (const [id, entry] of remembered)
          if (entry.record.cluster === record.cluster && entry.record.createdAt < record.createdAt)
            remembered.delete(id);
        const newer = [...remembered.values()].some(
          (e) => e.record.cluster === record.cluster && e.record.createdAt > record.createdAt,
        );
        if (!newer) remembered.set(record.id, { record, missingSince: null });
      }
      return restored;
    },

    forget(jobId) {
      remembered.delete(jobId);
    },

    close() {
      closed = true;
      unlisten?.();
    },
  };
}
