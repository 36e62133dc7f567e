import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Logger } from "pino";
import type { Clock } from "../../core/clock.js";
import { AppError, ErrorCode, isAppError } from "../../core/errors.js";
import type { RolloutTarget } from "../../core/plan/plan-types.js";
import { beginRollout, decide } from "../../core/rollout/decide.js";
import type { RolloutSettings, RolloutState } from "../../core/rollout/rollout-state.js";
import { summarizeRollout } from "../../core/rollout/summarize.js";
import type { HistoryEntry } from "../store/audit-and-history.js";
import type { JobRecord, SlackThread } from "../store/job-record.js";
import type { Lease, LockHolder } from "../store/job-store.js";
import { rolloutStateOf } from "../store/rollout-record.js";
import type { RolloutServiceStore } from "../store/store-roles.js";
import { createLockKeeper } from "./lock-keeper.js";
import { createLostRecordGuard } from "./lost-record-guard.js";
import { runRollout } from "./runner.js";
import type { RunnerDeps, RunOutcome } from "./runner-deps.js";
import { backgroundClock } from "./system-clock.js";

/** Per-cluster runner dependencies (reader, executor, approvals, observers), built by the composition root. */
export type RunnerDepsFactory = (job: JobRecord) => RunnerDeps;

export interface RolloutServiceOptions {
  readonly store: RolloutServiceStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** This replica's id, shown as the lock holder. */
  readonly owner: string;
  readonly lockTtlMs: number;
  readonly depsFor: RunnerDepsFactory;
  /** Called when a run ends (any outcome), after the lock is released. */
  readonly onFinished?: (job: JobRecord, outcome: RunOutcome) => void;
}

export interface StartRequest {
  readonly cluster: string;
  readonly target: RolloutTarget;
  readonly image: string | null;
  readonly requestedBy: string;
  readonly settings: RolloutSettings;
  readonly thread?: SlackThread | null;
  readonly jobId?: string;
}

export type StartOutcome =
  | { readonly kind: "started"; readonly job: JobRecord; readonly done: Promise<RunOutcome> }
  | { readonly kind: "locked"; readonly holder: LockHolder };

export interface RolloutService {
  /** Takes the cluster's lock and runs the rollout in the background. */
  start(request: StartRequest): Promise<StartOutcome>;
  /**
   * Takes over orphaned jobs (lease expired, job unfinished) and resumes them from their checkpoints; `filter`
   * chooses which (default: all). First writes back any unfinished record the store lost since an earlier call
   * (lost-record-guard.ts), so that it is one of them.
   */
  resumeOrphans(
    filter?: (job: JobRecord) => boolean,
  ): Promise<{ job: JobRecord; done: Promise<RunOutcome> }[]>;
  /** Jobs running in this process. */
  running(): readonly string[];
  /** Stops every run's lock keeper and waits for the runs to stop (they checkpoint; the locks are released). */
  close(): Promise<void>;
}

function historyEntry(job: JobRecord, state: RolloutState, now: number): HistoryEntry | null {
  if (state.phase.kind !== "finished") return null;
  const summary = summarizeRollout(state, now);
  return {
    jobId: job.id,
    cluster: job.cluster,
    target: state.target.argument,
    result: state.phase.result,
    requestedBy: job.requestedBy,
    startedAt: state.startedAt,
    finishedAt: state.finishedAt ?? now,
    stepsDone: summary.totals.stepsDone,
    stepsTotal: summary.totals.stepsTotal,
    tasksMoved: summary.totals.tasksMoved,
    taskDowntimeMs: summary.totals.taskDowntimeMs,
    maxDataGapMs: summary.totals.dataFlow?.maxGapMs ?? null,
    thread: job.thread,
  };
}

/** Waits between attempts of a start's first store call: about 3 s in all. */
const START_RETRY_DELAYS_MS = [250, 500, 1_000, 1_500];

/**
 * A start's lock taken through a store that is restarting or failing over (connection refused, reconnecting): retried
 * for a few seconds, so a command typed in that moment starts once the store answers instead of failing at once.
 * Only the lock: one atomic script. (A reply lost after the lock was taken reads, on the retry, as the lock held by
 * this start's own job id: the start is refused as locked and the lease lapses on its own.)
 */
export async function retryBriefly<T>(call: () => Promise<T>): Promise<T> {
  for (const delay of START_RETRY_DELAYS_MS) {
    try {
      return await call();
    } catch (err) {
      if (!isAppError(err) || !err.retryable) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  return call();
}

export function createRolloutService(options: RolloutServiceOptions): RolloutService {
  const { store, clock, owner, lockTtlMs } = options;
  const log = options.logger.child({ component: "rollout-service" });
  const runs = new Map<string, { controller: AbortController; done: Promise<RunOutcome> }>();
  /** Set by close(): no new run starts (a command or a sweep still in flight during shutdown). */
  let closed = false;
  // Twice the lease: a live runner notices its record gone at its next renewal (a third of the lease) or when the
  // lease runs out while the store restarts, and marks it lost well within that. Wall time, like the store's leases
  // (the service's clock may be the simulator's virtual time).
  const guard = createLostRecordGuard({
    store,
    now: () => backgroundClock.now(),
    logger: options.logger,
    owner,
    graceMs: 2 * lockTtlMs,
    lockTtlMs,
  });

  /**
   * Releases a lease on the way out, so an immediate rerun (or another replica) is not blocked by this process for a
   * whole lease. A blip is retried a few times (never past the lease: release is compare-token, so a late release of
   * an expired or taken-over lease is a no-op); if Redis stays away, the lease simply expires.
   */
  async function releaseSoon(lease: Lease): Promise<void> {
    const delays = [0, 100, 300, 600];
    for (const [i, delay] of delays.entries()) {
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      try {
        await store.releaseLock(lease);
        return;
      } catch (err) {
        const last = i === delays.length - 1 || !isAppError(err) || !err.retryable;
        if (last) {
          log.warn({ err, jobId: lease.jobId }, "lock release failed; the lease will expire on its own");
          return;
        }
      }
    }
  }

  function launch(
    job: JobRecord,
    lease: Lease,
    first: Parameters<typeof runRollout>[4],
  ): Promise<RunOutcome> {
    const controller = new AbortController();
    const keeper = createLockKeeper({
      store,
      lease,
      ttlMs: lockTtlMs,
      logger: options.logger,
      onLost: (reason) => controller.abort(reason),
    });
    const signal = AbortSignal.any([controller.signal, keeper.signal]);
    // Every poll passes the signal to one request per worker at once (1 + 2 per worker listeners).
    setMaxListeners(0, signal);
    const deps = options.depsFor(job);
    const done = (async (): Promise<RunOutcome> => {
      try {
        const outcome = await runRollout(deps, job, lease, signal, first);
        if (outcome.kind === "finished") {
          // Also told by the store's broadcast; this one holds when the subscriber connection is down.
          guard.forget(job.id);
          const entry = historyEntry(job, outcome.state, clock.now());
          if (entry)
            await store
              .pushHistory(job.cluster, entry)
              .catch((err: unknown) => log.warn({ err }, "history push failed"));
        }
        return outcome;
      } finally {
        keeper.stop();
        // A lease the keeper declared lost has expired (or was taken): releasing it would be a no-op.
        if (!keeper.signal.aborted) await releaseSoon(lease);
        await deps.restarter.close().catch(() => undefined);
        await deps.reader.close();
        runs.delete(job.id);
      }
    })();
    done.then(
      (outcome) => options.onFinished?.(job, outcome),
      (err: unknown) => log.error({ err, jobId: job.id }, "rollout run crashed"),
    );
    runs.set(job.id, { controller, done });
    return done;
  }

  return {
    async start(request) {
      if (closed) throw new AppError(ErrorCode.Internal, "the rollout service is shutting down");
      const jobId = request.jobId ?? `cr-${randomUUID().slice(0, 8)}`;
      const acquired = await retryBriefly(() =>
        store.acquireLock(request.cluster, { jobId, owner, ttlMs: lockTtlMs }),
      );
      if (acquired.kind === "held") return { kind: "locked", holder: acquired.holder };
      const lease = acquired.lease;
      // An interrupted rollout of this cluster (its owner died, its lease expired) is resumed by the sweeper from its
      // checkpoint; starting another one now would be overtaken by it later, on a stale plan.
      const interrupted = (await store.listJobs({ cluster: request.cluster, unfinishedOnly: true })).find(
        (j) => j.id !== jobId,
      );
      if (interrupted) {
        await store.releaseLock(lease).catch(() => undefined);
        return {
          kind: "locked",
          holder: {
            jobId: interrupted.id,
            owner: `interrupted rollout (last owner ${interrupted.owner ?? "unknown"}), about to be resumed`,
            since: interrupted.createdAt,
            expiresAt: 0,
          },
        };
      }
      const now = clock.now();
      const first = beginRollout({
        jobId,
        cluster: request.cluster,
        target: request.target,
        image: request.image,
        requestedBy: request.requestedBy,
        settings: request.settings,
        now,
      });
      const job: JobRecord = {
        v: 1,
        id: jobId,
        cluster: request.cluster,
        status: "running",
        requestedBy: request.requestedBy,
        createdAt: now,
        updatedAt: now,
        fence: lease.fence,
        owner,
        thread: request.thread ?? null,
        pendingApproval: null,
        control: null,
        state: first.state,
      };
      try {
        await store.createJob(job);
        await store.appendAudit(jobId, {
          at: now,
          actor: request.requestedBy,
          action: "requested",
          detail: `${request.cluster} ${request.target.argument}`,
        });
      } catch (e) {
        await store.releaseLock(lease).catch(() => undefined);
        throw e;
      }
      return { kind: "started", job, done: launch(job, lease, first) };
    },

    async resumeOrphans(filter) {
      if (closed) return [];
      const taken: { job: JobRecord; done: Promise<RunOutcome> }[] = [];
      await guard
        .sweep((id) => runs.has(id))
        .catch((err: unknown) => log.warn({ err }, "lost-record sweep failed; orphans are still looked for"));
      for (const orphan of await store.findOrphans()) {
        if (runs.has(orphan.id) || (filter && !filter(orphan))) continue;
        try {
          const result = await store.takeOver(orphan, owner, lockTtlMs);
          if (result.kind !== "acquired") continue;
          const job = await store.loadJob(orphan.id);
          const state = rolloutStateOf(job);
          log.warn(
            { jobId: job.id, cluster: job.cluster, previousOwner: orphan.owner },
            "orphaned rollout taken over",
          );
          const done = launch(
            job,
            result.lease,
            decide(state, { kind: "taken-over", now: clock.now(), owner }),
          );
          taken.push({ job, done });
        } catch (err) {
          if (isAppError(err)) log.error({ err, jobId: orphan.id }, "orphaned rollout could not be resumed");
          else throw err;
        }
      }
      return taken;
    },

    running: () => [...runs.keys()],

    async close() {
      closed = true;
      guard.close();
      for (const run of runs.values()) run.controller.abort(new Error("shutting down"));
      await Promise.allSettled([...runs.values()].map((r) => r.done));
    },
  };
}
