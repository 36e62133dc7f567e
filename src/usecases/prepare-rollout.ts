import type { Logger } from "pino";
import { isWithinChangeWindow } from "../config/change-window.js";
import { planTargetOf, resolveTarget } from "../config/resolve-target.js";
import type { ClusterConfig, Config } from "../config/schema.js";
import type { RolloutPace, RolloutTarget } from "../core/plan/plan-types.js";
import type { RolloutSettings } from "../core/rollout/rollout-state.js";
import type { RolloutService } from "../jobs/runner/rollout-service.js";
import type { SlackThread } from "../jobs/store/job-record.js";
import type { LockReader, PrepareStore } from "../jobs/store/store-roles.js";
import {
  type AccessList,
  type Authorizer,
  type ClusterAccess,
  lookUpCluster,
  type Requester,
  requesterId,
} from "./access.js";
import { readLockFacts } from "./read-lock.js";
import {
  type BadVersion,
  type ChannelNotAllowed,
  type ClusterLocked,
  type NotAuthorized,
  type OutsideChangeWindow,
  type Refused,
  refused,
  type StoreUnreachable,
  type UnknownCluster,
} from "./refusals.js";

/** What every use-case that checks a request needs: the configuration, the wall clock, who may do what. */
export interface RequestPolicy {
  readonly config: Config;
  /** Wall clock (change windows, decision times). */
  readonly now: () => number;
  /** Asked about Slack requesters only; a terminal requester never reaches it (null from a terminal). */
  readonly authorizer: Authorizer | null;
}

export interface PreparePolicy extends RequestPolicy {
  /** The engine's settings for a cluster (the composition root's `rolloutSettingsFor`). */
  readonly settingsFor: (cluster: ClusterConfig, pace: RolloutPace | undefined) => RolloutSettings;
}

export interface RolloutRequest {
  readonly cluster: string;
  /** `restart`, or the version as typed (`v3.7`). */
  readonly argument: string;
  readonly pace?: RolloutPace;
  /** A plain restart: workers whose process started at or after this time (epoch ms) count as restarted. */
  readonly since?: number;
  readonly requester: Requester;
}

/** A rollout that passed every check, ready to start. */
export interface PreparedRollout {
  readonly cluster: string;
  readonly target: RolloutTarget;
  readonly image: string | null;
  readonly settings: RolloutSettings;
  readonly requestedBy: string;
}

export type RequestRefusal = TargetRefusal | OutsideChangeWindow;
export type ClusterBusy = StoreUnreachable | ClusterLocked;
export type PrepareRefusal = RequestRefusal | ClusterBusy;

export type RequestChecked =
  | { readonly kind: "accepted"; readonly rollout: PreparedRollout }
  | Refused<RequestRefusal>;
export type PrepareResult =
  | { readonly kind: "ok"; readonly rollout: PreparedRollout }
  | Refused<PrepareRefusal>;

export type TargetRefusal = ChannelNotAllowed | UnknownCluster | NotAuthorized | BadVersion;

/** A request whose cluster, requester and version passed: what `plan` and a rollout share. */
export interface CheckedTarget {
  readonly kind: "accepted";
  readonly clusterConfig: ClusterConfig;
  readonly access: ClusterAccess;
  readonly target: RolloutTarget;
  readonly image: string | null;
}

/** Checks, in order: channel (Slack), cluster known, requester (Slack), version. */
export async function checkTarget(
  policy: RequestPolicy,
  request: Omit<RolloutRequest, "pace">,
): Promise<CheckedTarget | Refused<TargetRefusal>> {
  const { config } = policy;
  const { cluster, requester } = request;
  const found = lookUpCluster(config, cluster, requester);
  if (found.kind !== "found") return refused(found);
  const { clusterConfig, access } = found;
  const denied = await requesterDenied(policy, requester, access.requesters, cluster);
  if (denied) return refused(denied);
  const resolved = resolveTarget(clusterConfig, request.argument);
  if (resolved.kind === "error") return refused({ kind: "bad-version", message: resolved.message });
  return { kind: "accepted", clusterConfig, access, ...planTargetOf(resolved.target) };
}

/**
 * The checks of a rollout request that need no store, in order: channel (Slack), cluster known, requester (Slack),
 * version, change window. What a terminal run checks before its preflight; Slack's `prepareRollout` goes on to the
 * store and the lock.
 */
export async function checkRolloutRequest(
  policy: PreparePolicy,
  request: RolloutRequest,
): Promise<RequestChecked> {
  const checked = await checkTarget(policy, request);
  if (checked.kind === "refused") return checked;
  const window = isWithinChangeWindow(checked.access.changeWindows, policy.now());
  if (window.kind === "closed")
    return refused({
      kind: "outside-change-window",
      cluster: request.cluster,
      next: window.next,
      nextMs: window.nextMs,
    });
  return {
    kind: "accepted",
    rollout: {
      cluster: request.cluster,
      target:
        request.since !== undefined && checked.target.kind === "restart"
          ? { ...checked.target, since: request.since }
          : checked.target,
      image: checked.image,
      settings: policy.settingsFor(checked.clusterConfig, request.pace),
      requestedBy: requesterId(request.requester),
    },
  };
}

/** Null when a Slack requester may start or control rollouts of the cluster (always null from a terminal). */
async function requesterDenied(
  policy: RequestPolicy,
  requester: Requester,
  requesters: AccessList,
  cluster: string,
): Promise<NotAuthorized | null> {
  if (requester.kind !== "slack") return null;
  const result = await authorizerOf(policy).canRequest(requester.userId, requesters, { cluster });
  return result.kind === "allowed" ? null : { kind: "not-authorized", reason: result.reason };
}

export function authorizerOf(policy: RequestPolicy): Authorizer {
  if (policy.authorizer === null) throw new Error("a Slack requester needs an authorizer");
  return policy.authorizer;
}

/** Null when the store answers and nobody holds the cluster's lock. */
export async function checkClusterFree(
  store: PrepareStore,
  cluster: string,
  logger: Logger,
): Promise<ClusterBusy | null> {
  try {
    await store.ping();
  } catch (err) {
    logger.error({ err, cluster }, "store unreachable");
    return { kind: "store-unreachable" };
  }
  if ((await store.readLock(cluster)) === null) return null;
  return { kind: "locked", cluster, holder: await readLockFacts(store, cluster) };
}

export interface PrepareDeps extends PreparePolicy {
  /** Reachable, and the cluster's lock free (its holder and job when not). */
  readonly store: PrepareStore;
  readonly logger: Logger;
}

/**
 * Every check before a rollout starts, in order: channel, cluster known, requester, version, change window, store
 * reachable, lock free. The first that fails is the refusal.
 */
export async function prepareRollout(deps: PrepareDeps, request: RolloutRequest): Promise<PrepareResult> {
  const checked = await checkRolloutRequest(deps, request);
  if (checked.kind === "refused") return checked;
  const busy = await checkClusterFree(deps.store, request.cluster, deps.logger);
  if (busy) return refused(busy);
  return { kind: "ok", rollout: checked.rollout };
}

export type StartResult = { readonly kind: "started"; readonly jobId: string } | Refused<ClusterLocked>;

/**
 * Starts a prepared rollout under `jobId`, reporting to `thread` (posted first: a job always knows where it reports).
 * Refused when another rollout took the lock since the checks.
 */
export async function startRollout(
  deps: { readonly service: RolloutService; readonly store: LockReader },
  rollout: PreparedRollout,
  start: { readonly jobId: string; readonly thread: SlackThread },
): Promise<StartResult> {
  const started = await deps.service.start({ ...rollout, ...start });
  if (started.kind === "started") return { kind: "started", jobId: started.job.id };
  return refused({
    kind: "locked",
    cluster: rollout.cluster,
    holder: await readLockFacts(deps.store, rollout.cluster),
  });
}
