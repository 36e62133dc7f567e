import type { FleetConfig } from "../config/schema.js";
import { fleetLockName, resumeFrom } from "../jobs/store/fleet-record.js";
import type { FleetRequestStore } from "../jobs/store/store-roles.js";
import { lookUpCluster, type Requester, requesterId } from "./access.js";
import { controlRollout } from "./control-rollout.js";
import { authorizerOf, checkTarget, type RequestPolicy, type TargetRefusal } from "./prepare-rollout.js";
import { readLockFacts } from "./read-lock.js";
import {
  type ChannelNotAllowed,
  type ClusterLocked,
  type NotAuthorized,
  type Refused,
  refused,
  type StoreUnreachable,
  type UnknownCluster,
  type UnknownFleet,
} from "./refusals.js";

/**
 * What Slack and the terminal do to a fleet besides running it: check a start, abort a run, answer a stage's
 * approval prompt. Every check is made for every cluster of the fleet (or of the stage): a fleet is as allowed as its
 * least allowed cluster.
 */
export interface FleetRequestDeps extends RequestPolicy {
  readonly store: FleetRequestStore;
}

/** Another run of the fleet holds its lock. */
export interface FleetBusy {
  readonly kind: "fleet-busy";
  readonly fleet: string;
  readonly runId: string;
  readonly owner: string;
  readonly since: number;
}

/** A cluster of the fleet refused the request: which, and why (a cluster of the first stage to roll also when busy). */
export interface FleetClusterRefused {
  readonly kind: "fleet-cluster-refused";
  readonly cluster: string;
  readonly refusal: TargetRefusal | ClusterLocked;
}

/** The fleet's run started in Slack lost its replica; another replica takes it over at its next sweep. */
export interface FleetTakingOver {
  readonly kind: "fleet-taking-over";
  readonly fleet: string;
  readonly runId: string;
}

export type FleetStartRefusal =
  | UnknownFleet
  | FleetClusterRefused
  | StoreUnreachable
  | FleetBusy
  | FleetTakingOver;

export type FleetStartChecked =
  | { readonly kind: "accepted"; readonly name: string; readonly fleet: FleetConfig; readonly target: string }
  | Refused<FleetStartRefusal>;

/**
 * Every check before a fleet starts, in order: the fleet is configured; for each of its clusters channel, cluster,
 * requester and version (as for one cluster's rollout; change windows are waited for, not refused); the store answers;
 * no run of the fleet holds its lock.
 */
export async function checkFleetStart(
  deps: FleetRequestDeps,
  request: { readonly fleet: string; readonly argument: string; readonly requester: Requester },
): Promise<FleetStartChecked> {
  const fleet = deps.config.fleets[request.fleet];
  if (fleet === undefined) return refused(unknownFleet(deps, request.fleet));
  for (const cluster of fleet.stages.flat()) {
    const checked = await checkTarget(deps, {
      cluster,
      argument: request.argument,
      requester: request.requester,
    });
    if (checked.kind === "refused")
      return refused({ kind: "fleet-cluster-refused", cluster, refusal: checked.reason });
  }
  try {
    await deps.store.ping();
  } catch {
    return refused({ kind: "store-unreachable" });
  }
  const holder = await deps.store.readLock(fleetLockName(request.fleet));
  if (holder !== null)
    return refused({
      kind: "fleet-busy",
      fleet: request.fleet,
      runId: holder.jobId,
      owner: holder.owner,
      since: holder.since,
    });
  const previous = await deps.store.loadFleetRun(request.fleet).catch(() => null);
  // A run started in Slack whose replica is gone is taken over by another replica at its next sweep: not replaced.
  if (previous !== null && previous.status === "running" && (previous.thread ?? null) !== null)
    return refused({ kind: "fleet-taking-over", fleet: request.fleet, runId: previous.id });
  // The stage that would roll first (after those a resumed run already did) must not be busy now: its cluster would
  // fail at once. Later stages' clusters may well be free by their turn.
  const first = resumeFrom(previous, fleet.stages, request.argument) ?? 0;
  for (const cluster of fleet.stages[first] ?? []) {
    if ((await deps.store.readLock(cluster)) === null) continue;
    return refused({
      kind: "fleet-cluster-refused",
      cluster,
      refusal: { kind: "locked", cluster, holder: await readLockFacts(deps.store, cluster) },
    });
  }
  return { kind: "accepted", name: request.fleet, fleet, target: request.argument };
}

/** The fleet has no running run: none on record, one that ended, or one whose process is gone. */
export interface FleetNotRunning {
  readonly kind: "fleet-not-running";
  readonly fleet: string;
  readonly run: { readonly id: string; readonly status: string } | null;
  /** The run is marked running but nobody holds its lock (its process is gone). */
  readonly stopped: boolean;
}

export type FleetControlRefusal =
  | UnknownFleet
  | ChannelNotAllowed
  | UnknownCluster
  | NotAuthorized
  | FleetNotRunning
  | StoreUnreachable;

export type FleetAbortAnswer =
  | {
      readonly kind: "requested";
      readonly fleet: string;
      readonly runId: string;
      /** The fleet's clusters rolling now, each aborted before its next restart. */
      readonly clusters: readonly { readonly cluster: string; readonly jobId: string }[];
    }
  | Refused<FleetControlRefusal>;

/**
 * Aborts the fleet's running run: no further stage starts, a wait or soak stops, and each cluster rolling now is
 * aborted as `abort CLUSTER` would (before its next restart). Allowed to whoever may abort every cluster of the fleet.
 */
export async function abortFleet(
  deps: FleetRequestDeps,
  request: { readonly fleet: string; readonly requester: Requester; readonly via: string },
): Promise<FleetAbortAnswer> {
  const fleet = deps.config.fleets[request.fleet];
  if (fleet === undefined) return refused(unknownFleet(deps, request.fleet));
  const denied = await deniedFor(deps, fleet.stages.flat(), request.requester, "abort");
  if (denied !== null) return refused(denied);
  const run = await deps.store.loadFleetRun(request.fleet);
  if (run === null || run.status !== "running")
    return refused({ kind: "fleet-not-running", fleet: request.fleet, run, stopped: false });
  // A terminal's run whose process is gone has nothing to abort; a Slack run's is taken over by another replica,
  // which finds the abort recorded.
  const live = (await deps.store.readLock(fleetLockName(request.fleet)))?.jobId === run.id;
  if (!live && (run.thread ?? null) === null)
    return refused({ kind: "fleet-not-running", fleet: request.fleet, run, stopped: true });
  const by = requesterId(request.requester);
  await deps.store.requestFleetAbort(request.fleet, run.id, { by, at: deps.now() });
  const clusters: { cluster: string; jobId: string }[] = [];
  for (const cluster of run.stages.flatMap((s) => s.clusters.filter((c) => c.status === "running"))) {
    // The rollout the fleet started (a Slack run records it), never another one holding the cluster meanwhile.
    const result = await controlRollout(deps, {
      action: "abort",
      cluster: cluster.name,
      requester: request.requester,
      ...(cluster.job ? { jobId: cluster.job } : {}),
    });
    if (result.kind === "refused") continue;
    await deps.store.appendAudit(result.jobId, {
      at: result.at,
      actor: by,
      action: "abort-requested",
      detail: `${cluster.name} (${request.via}, fleet ${request.fleet} run ${run.id})`,
    });
    clusters.push({ cluster: cluster.name, jobId: result.jobId });
  }
  return { kind: "requested", fleet: request.fleet, runId: run.id, clusters };
}

export type StageAnswer =
  | { readonly kind: "recorded"; readonly decision: "approve" | "abort" }
  | Refused<FleetControlRefusal | { readonly kind: "stage-not-waiting"; readonly status: string }>;

/**
 * Answers a stage's approval prompt: "approve" starts the stage, "abort" aborts the fleet. Allowed to whoever may
 * approve every cluster of the stage (four eyes as each cluster sets it; an abort needs no second pair).
 */
export async function answerFleetStage(
  deps: FleetRequestDeps,
  request: {
    readonly fleet: string;
    readonly runId: string;
    readonly stage: number;
    readonly decision: "approve" | "abort";
    readonly requester: Requester;
  },
): Promise<StageAnswer> {
  const fleet = deps.config.fleets[request.fleet];
  if (fleet === undefined) return refused(unknownFleet(deps, request.fleet));
  const run = await deps.store.loadFleetRun(request.fleet);
  if (run === null || run.id !== request.runId || run.status !== "running")
    return refused({
      kind: "stage-not-waiting",
      status: run === null || run.id !== request.runId ? "replaced by a later run" : `over (${run.status})`,
    });
  const status = run.stages[request.stage]?.status ?? "unknown";
  if (status !== "awaiting-approval") return refused({ kind: "stage-not-waiting", status });
  // Approving starts this stage; aborting stops the whole fleet, so it needs the right on every cluster of it.
  const clusters = request.decision === "abort" ? fleet.stages.flat() : (fleet.stages[request.stage] ?? []);
  const denied = await deniedFor(deps, clusters, request.requester, request.decision, run.requestedBy);
  if (denied !== null) return refused(denied);
  const by = requesterId(request.requester);
  const at = deps.now();
  await deps.store.decideFleetStage(request.fleet, run.id, request.stage, {
    decision: request.decision,
    by,
    at,
  });
  if (request.decision === "abort") await deps.store.requestFleetAbort(request.fleet, run.id, { by, at });
  return { kind: "recorded", decision: request.decision };
}

function unknownFleet(deps: FleetRequestDeps, fleet: string): UnknownFleet {
  return { kind: "unknown-fleet", fleet, known: Object.keys(deps.config.fleets) };
}

/**
 * The first refusal among the clusters for a Slack requester: channel, cluster, then the right to act — to approve
 * (stage approval, four eyes as configured), or to abort (a requester or an approver of the cluster).
 */
async function deniedFor(
  deps: FleetRequestDeps,
  clusters: readonly string[],
  requester: Requester,
  action: "approve" | "abort",
  requestedBy = "",
): Promise<ChannelNotAllowed | UnknownCluster | NotAuthorized | null> {
  for (const cluster of clusters) {
    const found = lookUpCluster(deps.config, cluster, requester);
    if (found.kind !== "found") return found;
    if (requester.kind !== "slack") continue;
    const authorizer = authorizerOf(deps);
    const asApprover = await authorizer.canApprove(requester.userId, found.access.approvers, {
      cluster,
      requestedBy,
      fourEyes: action === "approve" && found.access.fourEyes,
    });
    if (asApprover.kind === "allowed") continue;
    if (action === "abort") {
      const asRequester = await authorizer.canRequest(requester.userId, found.access.requesters, { cluster });
      if (asRequester.kind === "allowed") continue;
    }
    return { kind: "not-authorized", reason: asApprover.reason };
  }
  return null;
}
