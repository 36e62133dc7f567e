import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { RolloutState } from "../core/rollout/rollout-state.js";
import { isFinished, type JobRecord, type SlackThread } from "../jobs/store/job-record.js";
import { rolloutStateOf } from "../jobs/store/rollout-record.js";
import type { ReportSweepStore } from "../jobs/store/store-roles.js";
import type { ChartPoster } from "./chart-poster.js";
import type { Notifier } from "./notifier.js";
import { hasFinalReport, postFinalReport, threadKeys } from "./thread-reporter.js";
import { renderParent } from "./views/render-parent.js";

export interface OwedReportsOptions {
  readonly store: ReportSweepStore;
  readonly notifier: Notifier;
  readonly logger: Logger;
  /** This replica's id: the claimer of the reports it posts. */
  readonly replicaId: string;
  /** The clock the job records' times are in (the runner's). */
  readonly now: () => number;
  /**
   * How long after a job finished its report counts as owed: long enough that the replica that finished it has
   * normally posted it (it posts at once, without claiming; see `sweep`).
   */
  readonly graceMs: number;
  /**
   * Jobs started longer ago than this are left alone, so a store full of old jobs does not flood their channels
   * (what bounds it is the start, `createdAt`: the store reads recent jobs from the index ordered by it).
   */
  readonly maxAgeMs: number;
  /** How long a claim keeps other replicas off a report (the store's clock): longer than posting it takes. */
  readonly claimTtlMs: number;
  /** Shares the timeline chart under the report, as the reporter does; without it, no chart. */
  readonly chart?: ChartPoster;
}

export interface OwedReports {
  /**
   * Finds finished jobs whose thread never got their final report, claims each (exactly one replica wins a claim),
   * and posts the reports it won; resolves with their job ids once claimed (the posts go on in the background).
   */
  sweep(): Promise<string[]>;
}

/**
 * The final reports no replica posted: the replica that finished a rollout saves the job as finished, releases the
 * lock and then posts the report; if it dies in between, the job record has no report ts (`hasFinalReport`), and a
 * replica's periodic sweep posts the report in its place, through the reporter's own code path (`postFinalReport`).
 */
export function createOwedReports(o: OwedReportsOptions): OwedReports {
  const log = o.logger.child({ component: "owed-reports" });
  const { store, notifier } = o;
  const run = randomUUID().slice(0, 8);
  let notes = 0;
  /** Reports this replica claimed and is posting: a later sweep leaves them to it, whatever the claim says. */
  const posting = new Set<string>();
  /** Jobs whose checkpoint cannot be read back: said once, not on every sweep. */
  const unreadable = new Set<string>();

  /**
   * Finished, with a thread, no report recorded, finished at least `graceMs` ago. The replica that finished the job
   * posts its report without claiming it: a claim would slow nothing, but a claim by a replica that dies before
   * posting would keep the report from its thread for a whole claim TTL, which is the case this sweep is for; the
   * grace period keeps sweepers away from a report that replica is still posting. A report this replica's notifier
   * still holds (its own finish, or a post it is retrying) is not owed: it is on its way.
   */
  function owed(job: JobRecord, now: number): job is JobRecord & { thread: SlackThread } {
    return (
      isFinished(job.status) &&
      job.thread !== null &&
      !hasFinalReport(job.id, job.messages) &&
      job.updatedAt <= now - o.graceMs &&
      !posting.has(job.id) &&
      notifier.handleOf(threadKeys.report(job.id)) === null
    );
  }

  function stateOf(job: JobRecord): RolloutState | null {
    try {
      const state = rolloutStateOf(job);
      if (state.phase.kind === "finished") return state;
      throw new Error(`the checkpoint of a ${job.status} job is in phase ${state.phase.kind}`);
    } catch (err) {
      if (!unreadable.has(job.id))
        log.error({ err, jobId: job.id }, "owed final report not posted: the checkpoint is unreadable");
      unreadable.add(job.id);
      return null;
    }
  }

  /**
   * Posts the report (and the parent's final state, which the dead replica may not have shown either) and records
   * its ts, so no replica posts it again. A report Slack did not take is only logged: the claim lapses and a later
   * sweep, here or elsewhere, tries again.
   */
  async function post(job: JobRecord & { thread: SlackThread }, state: RolloutState): Promise<void> {
    const { channel, ts: parentTs } = job.thread;
    const jobLog = log.child({ jobId: job.id, cluster: job.cluster });
    const now = o.now();
    const parentKey = threadKeys.parent(job.id);
    notifier.adopt(channel, parentKey, parentTs);
    notifier.update(channel, parentKey, renderParent(state, now));
    const outcome = await postFinalReport({
      notifier,
      jobId: job.id,
      channel,
      parentTs,
      state,
      now,
      log: jobLog,
      noteKey: () => threadKeys.note(job.id, run, ++notes),
      ...(o.chart === undefined ? {} : { chart: o.chart }),
    });
    if (outcome.kind === "not-posted") {
      jobLog.warn(
        { err: outcome.err },
        "owed final report not posted; the claim lapses and a later sweep retries",
      );
      notifier.forget(`${job.id}:`);
      return;
    }
    try {
      await store.recordSlackMessages(job.id, { messages: { [outcome.key]: outcome.ts } });
      jobLog.info({ where: outcome.kind }, "owed final report posted");
      // Its last messages are out: forget them (bounded memory).
      await notifier.flush(10_000);
      notifier.forget(`${job.id}:`);
    } catch (err) {
      // The notifier keeps the posted report, so this replica does not post it again; another replica may, once the
      // claim lapses, since the record still says it is owed.
      jobLog.error({ err }, "owed final report posted but its ts not recorded");
    }
  }

  return {
    async sweep() {
      const now = o.now();
      const claimed: string[] = [];
      for (const job of await store.listJobs({ createdSince: now - o.maxAgeMs })) {
        if (!owed(job, now)) continue;
        const state = stateOf(job);
        if (state === null) continue;
        try {
          if (!(await store.claimReport(job.id, o.replicaId, o.claimTtlMs))) continue;
        } catch (err) {
          log.warn({ err, jobId: job.id }, "owed final report not claimed");
          continue;
        }
        log.warn({ jobId: job.id, cluster: job.cluster }, "posting a finished rollout's owed final report");
        posting.add(job.id);
        claimed.push(job.id);
        void post(job, state)
          .catch((err: unknown) => log.error({ err, jobId: job.id }, "owed final report failed"))
          .finally(() => posting.delete(job.id));
      }
      return claimed;
    },
  };
}
