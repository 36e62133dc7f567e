import type { Logger } from "pino";
import { isAppError } from "../core/errors.js";
import type { Decision } from "../core/rollout/approval-types.js";
import { isFinished, type JobRecord } from "../jobs/store/job-record.js";
import { rolloutStateOf } from "../jobs/store/rollout-record.js";
import type { AnswerStore } from "../jobs/store/store-roles.js";
import { accessOf } from "./access.js";
import { authorizerOf, type RequestPolicy } from "./prepare-rollout.js";
import {
  type AlreadyDecided,
  type AnswerNotOffered,
  type JobNotFound,
  type NotAuthorized,
  type NotAwaiting,
  type Refused,
  type RolloutFinished,
  refused,
} from "./refusals.js";

export interface AnswerDeps extends RequestPolicy {
  /** The job and its prompt; the decision, first writer wins. */
  readonly store: AnswerStore;
  readonly logger: Logger;
}

/** A click on a prompt's button: which prompt of which job, the answer, and the Slack user who clicked. */
export interface ApprovalAnswer {
  readonly jobId: string;
  readonly approvalId: string;
  readonly decision: Decision;
  readonly userId: string;
}

export type AnswerRefusal =
  | JobNotFound
  | RolloutFinished
  | AnswerNotOffered
  | NotAuthorized
  | AlreadyDecided
  | NotAwaiting;

export type AnswerResult = { readonly kind: "recorded" } | Refused<AnswerRefusal>;

/**
 * Records an answer to an approval prompt, from any replica (first writer wins; the replica running the job picks it
 * up). Checks: the job exists and is not over, the prompt offers the answer, the user may give it (approvers, with
 * four-eyes for going on; the requesters may always abort, as `/connect-roll abort` does).
 */
export async function answerApproval(deps: AnswerDeps, answer: ApprovalAnswer): Promise<AnswerResult> {
  const { store } = deps;
  const { jobId, approvalId, decision, userId } = answer;
  let job: JobRecord;
  try {
    job = await store.loadJob(jobId);
  } catch (err) {
    if (!isAppError(err)) throw err;
    deps.logger.warn({ err, jobId }, "approval click for an unreadable job");
    return refused({ kind: "job-not-found", jobId });
  }
  if (isFinished(job.status))
    return refused({ kind: "rollout-finished", cluster: job.cluster, status: job.status });
  const state = (() => {
    try {
      return rolloutStateOf(job);
    } catch {
      return null;
    }
  })();
  const pending = state?.phase.kind === "awaiting-approval" ? state.phase.approval : null;
  if (pending?.id === approvalId && !pending.options.includes(decision))
    return refused({ kind: "answer-not-offered" });
  const access = accessOf(deps.config, deps.config.clusters[job.cluster]);
  const authorizer = authorizerOf(deps);
  const asRequester =
    decision === "abort"
      ? await authorizer.canRequest(userId, access.requesters, { cluster: job.cluster })
      : null;
  const allowed =
    asRequester?.kind === "allowed"
      ? asRequester
      : await authorizer.canApprove(userId, access.approvers, {
          cluster: job.cluster,
          requestedBy: job.requestedBy,
          fourEyes: decision === "abort" ? false : access.fourEyes,
        });
  if (allowed.kind === "denied") return refused({ kind: "not-authorized", reason: allowed.reason });
  const result = await store.decide(jobId, approvalId, { decision, by: userId, at: deps.now() });
  switch (result.kind) {
    case "recorded":
      return { kind: "recorded" };
    case "already-decided":
      return refused({
        kind: "already-decided",
        by: result.decision.by,
        decision: result.decision.decision,
        at: result.decision.at,
      });
    case "not-awaiting":
      return refused({ kind: "not-awaiting" });
  }
}
