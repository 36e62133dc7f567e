import type { RolloutState } from "../core/rollout/rollout-state.js";
import type { HistoryEntry } from "../jobs/store/audit-and-history.js";
import { type FleetRunRecord, fleetLockName } from "../jobs/store/fleet-record.js";
import type { JobRecord } from "../jobs/store/job-record.js";
import { rolloutStateOf } from "../jobs/store/rollout-record.js";
import type { StatusStore } from "../jobs/store/store-roles.js";
import { accessOf, channelAllowed, lookUpCluster, type Requester } from "./access.js";
import type { RequestPolicy } from "./prepare-rollout.js";
import {
  type ChannelNotAllowed,
  type Refused,
  refused,
  type UnknownCluster,
  type UnknownFleet,
} from "./refusals.js";

export interface ReadDeps extends RequestPolicy {
  readonly store: StatusStore;
}

/** An unfinished rollout: its record, its state (null when the record is of another schema version), its lock. */
export interface RolloutStatus {
  readonly job: JobRecord;
  readonly state: RolloutState | null;
  /** The replica holding the cluster's lock for this job, null when none does. */
  readonly lockOwner: string | null;
}

export type ReadRefusal = ChannelNotAllowed | UnknownCluster;

export type StatusResult =
  | { readonly kind: "cluster"; readonly cluster: string; readonly rollouts: readonly RolloutStatus[] }
  /** No cluster named: the caller shows every configured cluster (the Home tab's overview). */
  | { readonly kind: "all-clusters" }
  | Refused<ReadRefusal>;

export type HistoryResult =
  | { readonly kind: "history"; readonly cluster: string; readonly entries: readonly HistoryEntry[] }
  | Refused<ReadRefusal>;

/** Rollouts shown by `history`. */
const HISTORY_LIMIT = 10;

/** Read paths honour the channel restriction too: status shows requesters and thread links. */
function readRefusal(deps: ReadDeps, cluster: string | undefined, requester: Requester): ReadRefusal | null {
  if (cluster !== undefined) {
    const found = lookUpCluster(deps.config, cluster, requester);
    return found.kind === "found" ? null : found;
  }
  const access = accessOf(deps.config, undefined);
  return channelAllowed(access, requester)
    ? null
    : { kind: "channel-not-allowed", channels: access.channels };
}

/** A cluster's unfinished rollouts and their lock, or (no cluster) the go-ahead to show every cluster. */
export async function readStatus(
  deps: ReadDeps,
  request: { readonly cluster: string | undefined; readonly requester: Requester },
): Promise<StatusResult> {
  const { cluster } = request;
  const refusal = readRefusal(deps, cluster, request.requester);
  if (refusal) return refused(refusal);
  if (cluster === undefined) return { kind: "all-clusters" };
  const jobs = await deps.store.listJobs({ unfinishedOnly: true, cluster });
  const rollouts: RolloutStatus[] = [];
  for (const job of jobs) {
    const holder = await deps.store.readLock(job.cluster);
    rollouts.push({ job, state: stateOf(job), lockOwner: holder?.jobId === job.id ? holder.owner : null });
  }
  return { kind: "cluster", cluster, rollouts };
}

/** The cluster's last finished rollouts, newest first. */
export async function readHistory(
  deps: ReadDeps,
  request: { readonly cluster: string; readonly requester: Requester },
): Promise<HistoryResult> {
  const refusal = readRefusal(deps, request.cluster, request.requester);
  if (refusal) return refused(refusal);
  return {
    kind: "history",
    cluster: request.cluster,
    entries: await deps.store.history(request.cluster, HISTORY_LIMIT),
  };
}

export type FleetStatusResult =
  | {
      readonly kind: "fleet";
      readonly fleet: string;
      /** Its latest run, or null when it has none on record. */
      readonly run: FleetRunRecord | null;
      /** False for a run marked running whose process is gone (the fleet's lock is not held by it). */
      readonly live: boolean;
    }
  | Refused<ReadRefusal | UnknownFleet>;

/** A fleet's latest run; shown where every one of its clusters may be read. */
export async function readFleetStatus(
  deps: ReadDeps,
  request: { readonly fleet: string; readonly requester: Requester },
): Promise<FleetStatusResult> {
  const fleet = deps.config.fleets[request.fleet];
  if (fleet === undefined)
    return refused({ kind: "unknown-fleet", fleet: request.fleet, known: Object.keys(deps.config.fleets) });
  for (const cluster of fleet.stages.flat()) {
    const refusal = readRefusal(deps, cluster, request.requester);
    if (refusal) return refused(refusal);
  }
  const run = await deps.store.loadFleetRun(request.fleet);
  const live =
    run === null ||
    run.status !== "running" ||
    (await deps.store.readLock(fleetLockName(request.fleet)))?.jobId === run.id;
  return { kind: "fleet", fleet: request.fleet, run, live };
}

function stateOf(job: JobRecord): RolloutState | null {
  try {
    return rolloutStateOf(job);
  } catch {
    return null;
  }
}

/**
 * The rollout of each cluster of a fleet run, by cluster, for the fleet's chart: the job the run recorded (a fleet run
 * in Slack), else the cluster's newest rollout started since the run began (a terminal's). Missing: not started, or
 * a record of another schema version.
 */
export async function fleetRolloutStates(
  store: Pick<StatusStore, "listJobs">,
  run: FleetRunRecord,
): Promise<Map<string, RolloutState>> {
  const states = new Map<string, RolloutState>();
  for (const c of run.stages.flatMap((s) => s.clusters)) {
    const jobs = await store.listJobs({ cluster: c.name, createdSince: run.startedAt });
    const job = jobs.find((j) => j.id === c.job) ?? (c.job ? undefined : jobs.at(-1));
    const state = job === undefined ? null : stateOf(job);
    if (state !== null) states.set(c.name, state);
  }
  return states;
}
