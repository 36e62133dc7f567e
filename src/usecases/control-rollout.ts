import { isWithinChangeWindow } from "../config/change-window.js";
import type { SlackThread } from "../jobs/store/job-record.js";
import type { ControlAction } from "../jobs/store/job-store.js";
import type { ControlStore } from "../jobs/store/store-roles.js";
import { lookUpCluster, type Requester, requesterId } from "./access.js";
import { authorizerOf, type RequestPolicy } from "./prepare-rollout.js";
import {
  type ChannelNotAllowed,
  type NoActiveRollout,
  type NotAuthorized,
  type OutsideChangeWindow,
  type Refused,
  type RolloutFinished,
  refused,
  type UnknownCluster,
} from "./refusals.js";

export interface ControlDeps extends RequestPolicy {
  /** The cluster's unfinished job, the request, and "abort" for a waiting prompt. Slack's store and the CLI's. */
  readonly store: ControlStore;
}

export interface ControlRequest {
  readonly action: ControlAction;
  readonly cluster: string;
  readonly requester: Requester;
  /** Only this job of the cluster (a fleet aborting the rollout it started), not whichever runs now. */
  readonly jobId?: string;
}

export type ControlRefusal =
  | ChannelNotAllowed
  | UnknownCluster
  | OutsideChangeWindow
  | NotAuthorized
  | NoActiveRollout
  | RolloutFinished;

export interface ControlRequested {
  readonly kind: "requested";
  readonly action: ControlAction;
  readonly cluster: string;
  readonly jobId: string;
  readonly thread: SlackThread | null;
  /** An abort also answers the prompt the rollout was waiting on: its kind, else null. */
  readonly answeredPrompt: string | null;
  /** When it was recorded (wall clock). */
  readonly at: number;
}

export type ControlAnswer = ControlRequested | Refused<ControlRefusal>;

/**
 * Pause, resume or abort a cluster's running rollout: recorded on the job (the runner applies it before the next
 * restart); an abort also answers a waiting prompt "abort". Checks, in order: channel (Slack), cluster known, change
 * window (resume only: it restarts workers again), requester — or, for abort, approver (Slack), a rollout running.
 */
export async function controlRollout(deps: ControlDeps, request: ControlRequest): Promise<ControlAnswer> {
  const { config, store } = deps;
  const { action, cluster, requester } = request;
  const found = lookUpCluster(config, cluster, requester);
  if (found.kind !== "found") return refused(found);
  const { access } = found;
  if (action === "resume") {
    const window = isWithinChangeWindow(access.changeWindows, deps.now());
    if (window.kind === "closed")
      return refused({ kind: "outside-change-window", cluster, next: window.next, nextMs: window.nextMs });
  }
  if (requester.kind === "slack") {
    const authorizer = authorizerOf(deps);
    const asRequester = await authorizer.canRequest(requester.userId, access.requesters, { cluster });
    // Requesters may pause, resume and abort; approvers may abort too.
    const allowed =
      action === "abort" && asRequester.kind === "denied"
        ? await authorizer.canApprove(requester.userId, access.approvers, {
            cluster,
            requestedBy: "",
            fourEyes: false,
          })
        : asRequester;
    if (allowed.kind === "denied")
      return refused({
        kind: "not-authorized",
        reason: asRequester.kind === "denied" ? asRequester.reason : "",
      });
  }
  const job = (await store.listJobs({ cluster, unfinishedOnly: true }))
    .filter((j) => request.jobId === undefined || j.id === request.jobId)
    .at(-1);
  if (job === undefined) return refused({ kind: "no-active-rollout", cluster });
  const by = requesterId(requester);
  const at = deps.now();
  const result = await store.requestControl(job.id, { action, by, at });
  if (result.kind === "finished")
    return refused({ kind: "rollout-finished", cluster, status: result.status });
  const prompt = action === "abort" ? job.pendingApproval : null;
  if (prompt !== null) await store.decide(job.id, prompt.id, { decision: "abort", by, at });
  return {
    kind: "requested",
    action,
    cluster,
    jobId: job.id,
    thread: job.thread,
    answeredPrompt: prompt?.kind ?? null,
    at,
  };
}
