import type { Logger } from "pino";
import { rolloutSettingsFor } from "../composition/compose-cluster.js";
import type { PreflightResult } from "../composition/preflight.js";
import type { ClusterConfig } from "../config/schema.js";
import type { RolloutPace } from "../core/plan/plan-types.js";
import { checkRollbackRequest, type FoundRollback } from "../usecases/prepare-rollback.js";
import {
  checkRolloutRequest,
  type PreparedRollout,
  type PrepareRefusal,
} from "../usecases/prepare-rollout.js";
import { type ClusterContext, preflightContext } from "./cluster-context.js";
import type { CliIo } from "./command.js";
import type { RunFlags } from "./run-flags.js";

export type RunChecked =
  | {
      readonly kind: "ready";
      readonly rollout: PreparedRollout;
      /** What the preflight built and checked: the run uses (and closes) them. */
      readonly preflight: Extract<PreflightResult, { kind: "ok" }>;
    }
  | { readonly kind: "refused"; readonly reason: PrepareRefusal }
  /** The preflight found problems: `reason` says them all. */
  | { readonly kind: "not-started"; readonly reason: string };

/**
 * Everything `run` checks before a job or a lock exists, so a refusal leaves nothing behind: the checks
 * `/connect-roll` makes, for a terminal user (the change window; no Slack channel or access list names a terminal
 * user, see the README's `run`), then the preflight (secrets, files, the executor, a first read of the cluster).
 * The store and the lock are checked once the store is open.
 */
export async function checkRun(
  ctx: Extract<ClusterContext, { kind: "ok" }>,
  flags: RunFlags,
  user: string,
  io: CliIo,
  logger: Logger,
  rollback?: FoundRollback,
): Promise<RunChecked> {
  const policy = {
    config: ctx.config,
    now: Date.now,
    authorizer: null,
    settingsFor: (cluster: ClusterConfig, p: RolloutPace | undefined) =>
      rolloutSettingsFor(cluster, p === undefined ? {} : { pace: p }),
  };
  const request = {
    cluster: ctx.name,
    ...(flags.pace === undefined ? {} : { pace: flags.pace }),
    requester: { kind: "terminal" as const, user },
  };
  const checked =
    rollback === undefined
      ? await checkRolloutRequest(policy, { ...request, argument: flags.argument })
      : await checkRollbackRequest(policy, request, rollback);
  if (checked.kind === "refused") return { kind: "refused", reason: checked.reason };
  const preflight = await preflightContext(ctx, io, logger, true).catch((e: unknown) => {
    if (io.signal.aborted) return { kind: "error" as const, problems: ["interrupted"] };
    throw e;
  });
  if (preflight.kind === "error")
    return { kind: "not-started", reason: `cannot start: ${preflight.problems.join("; ")}` };
  return { kind: "ready", rollout: checked.rollout, preflight };
}
