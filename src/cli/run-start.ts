import type { RolloutService } from "../jobs/runner/rollout-service.js";
import type { RunOutcome } from "../jobs/runner/runner-deps.js";
import type { JobStore } from "../jobs/store/job-store.js";
import { rolloutStateOf } from "../jobs/store/rollout-record.js";
import type { PreparedRollout, PrepareRefusal } from "../usecases/prepare-rollout.js";

export type RunStart =
  | { readonly kind: "running"; readonly done: Promise<RunOutcome>; readonly resumedJobId: string | null }
  /** Another target's rollout of this cluster is interrupted: it is finished first. */
  | { readonly kind: "other-interrupted"; readonly message: string }
  | { readonly kind: "refused"; readonly reason: Extract<PrepareRefusal, { kind: "locked" }> };

/**
 * Resumes this cluster's interrupted rollout of the same target from its checkpoint, or starts the prepared one
 * (`since`: a plain restart counts workers started at or after it as restarted).
 */
export async function startOrResume(
  store: JobStore,
  service: RolloutService,
  rollout: PreparedRollout,
  since: number | undefined,
): Promise<RunStart> {
  const { cluster, target } = rollout;
  const orphans = (await store.findOrphans()).filter((j) => j.cluster === cluster);
  const other = orphans.find((j) => rolloutStateOf(j).target.argument !== target.argument);
  if (other) {
    const argument = rolloutStateOf(other).target.argument;
    return {
      kind: "other-interrupted",
      message: `${cluster} has an interrupted rollout to ${argument} (job ${other.id}, ${other.status}); finish it first: connect-roll run ${cluster} ${argument}`,
    };
  }
  if (orphans.length > 0) {
    const first = (await service.resumeOrphans((j) => j.cluster === cluster))[0];
    if (first) return { kind: "running", done: first.done, resumedJobId: first.job.id };
  }
  const started = await service.start({
    ...rollout,
    target: since !== undefined && target.kind === "restart" ? { ...target, since } : target,
  });
  if (started.kind === "locked") {
    const h = started.holder;
    return {
      kind: "refused",
      reason: {
        kind: "locked",
        cluster,
        holder: { jobId: h.jobId, owner: h.owner, since: h.since, requestedBy: null, thread: null },
      },
    };
  }
  return { kind: "running", done: started.done, resumedJobId: null };
}
