import { argumentForReported } from "../config/resolve-target.js";
import type { RollbackTarget } from "../core/plan/plan-types.js";
import { rollbackOf } from "../core/rollout/rollback-of.js";
import { isFinished } from "../jobs/store/job-record.js";
import type { JobStore } from "../jobs/store/job-store.js";
import { rolloutStateOf } from "../jobs/store/rollout-record.js";
import type { PrepareStore } from "../jobs/store/store-roles.js";
import {
  checkClusterFree,
  checkRolloutRequest,
  checkTarget,
  type PrepareDeps,
  type PreparedRollout,
  type PreparePolicy,
  type PrepareRefusal,
  type RequestChecked,
  type RolloutRequest,
} from "./prepare-rollout.js";
import { type NoRollback, type Refused, refused } from "./refusals.js";

/** What a rollback returns the cluster to, found in the job store. */
export interface FoundRollback {
  readonly kind: "found";
  /** The version argument the rollout resolves (`v3.9.1`): the version the rolled-back rollout left. */
  readonly argument: string;
  readonly rollback: RollbackTarget;
  /** The rollback itself was interrupted (its job is unfinished): running it again resumes it. */
  readonly resumes: boolean;
  /** The version the workers reported before the rolled-back rollout (null: taken from an earlier rollback). */
  readonly reported: string | null;
}

/**
 * The rollback of the cluster's newest rollout, from its record in the job store: every worker it moved, newest
 * move first, back to the version its plan recorded. An interrupted rollback is found again (to be resumed); any
 * other unfinished rollout, a plain restart, or a rollout that moved nothing is refused with the reason.
 */
export async function findRollback(
  store: Pick<JobStore, "listJobs">,
  cluster: string,
): Promise<FoundRollback | Refused<NoRollback>> {
  const jobs = await store.listJobs({ cluster });
  const newest = [...jobs].sort((a, b) => b.createdAt - a.createdAt)[0];
  if (!newest) return refused({ kind: "no-rollback", cluster, why: { kind: "no-rollout" } });
  const state = rolloutStateOf(newest);
  const earlier = state.target.rollback;
  if (!isFinished(newest.status) && earlier)
    return {
      kind: "found",
      argument: state.target.argument,
      rollback: earlier,
      resumes: true,
      reported: null,
    };
  // A rollback that did not succeed is asked for again, not undone: its workers still go back (those back are skipped).
  if (earlier && newest.status !== "succeeded")
    return {
      kind: "found",
      argument: state.target.argument,
      rollback: earlier,
      resumes: false,
      reported: null,
    };
  const plan = rollbackOf(state);
  if (plan.kind !== "rollback") return refused({ kind: "no-rollback", cluster, why: plan });
  return {
    kind: "found",
    argument: `v${plan.version}`,
    rollback: plan.target,
    resumes: false,
    reported: plan.version,
  };
}

/**
 * The checks of a rollout request (`checkRolloutRequest`) for the rollback found: the version it returns to must be
 * one the cluster accepts, inside a change window; the target carries which workers and in what order.
 */
export async function checkRollbackRequest(
  policy: PreparePolicy,
  request: Omit<RolloutRequest, "argument" | "since">,
  found: FoundRollback,
): Promise<RequestChecked> {
  // The version the workers left, as this cluster's `versions` would have it typed (its table key, its template).
  const cluster = policy.config.clusters[request.cluster];
  const argument =
    cluster && !found.resumes && found.reported !== null
      ? argumentForReported(cluster, found.reported)
      : found.argument;
  const checked = await checkRolloutRequest(policy, { ...request, argument });
  if (checked.kind === "refused") return checked;
  const { rollout } = checked;
  return {
    kind: "accepted",
    rollout: { ...rollout, target: { ...rollout.target, rollback: found.rollback } },
  };
}

export type RollbackRefusal = PrepareRefusal | NoRollback;
export type PrepareRollbackResult =
  | { readonly kind: "ok"; readonly rollout: PreparedRollout; readonly found: FoundRollback }
  | Refused<RollbackRefusal>;

/**
 * `/connect-roll rollback CLUSTER`: the channel, the cluster and the requester first (as for any rollout), then the
 * rollback found in the store, then the checks of a rollout to the version it returns to, the store and the lock.
 */
export async function prepareRollback(
  deps: PrepareDeps & { readonly store: PrepareStore & Pick<JobStore, "listJobs"> },
  request: Omit<RolloutRequest, "argument" | "since">,
): Promise<PrepareRollbackResult> {
  const allowed = await checkTarget(deps, { ...request, argument: "restart" });
  if (allowed.kind === "refused") return allowed;
  let found: Awaited<ReturnType<typeof findRollback>>;
  try {
    found = await findRollback(deps.store, request.cluster);
  } catch (err) {
    deps.logger.error({ err, cluster: request.cluster }, "cannot read the cluster's rollouts");
    return refused({ kind: "store-unreachable" });
  }
  if (found.kind === "refused") return found;
  const checked = await checkRollbackRequest(deps, request, found);
  if (checked.kind === "refused") return checked;
  const busy = await checkClusterFree(deps.store, request.cluster, deps.logger);
  if (busy) return refused(busy);
  return { kind: "ok", rollout: checked.rollout, found };
}
