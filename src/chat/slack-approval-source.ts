import type { ApprovalSource } from "../jobs/runner/runner-deps.js";
import type { ApprovalWaitStore } from "../jobs/store/store-roles.js";

export interface SlackApprovalSourceOptions {
  readonly store: ApprovalWaitStore;
  /** How often the wait re-reads the decision in case a wake-up was lost. Default 1000 ms. */
  readonly pollMs?: number;
}

/**
 * Approvals answered in Slack: the click may reach any replica, which records the decision durably in the store
 * (first writer wins); the replica running the job waits here for it (woken by pub/sub, and polling).
 */
export function createSlackApprovalSource(options: SlackApprovalSourceOptions): ApprovalSource {
  return {
    wait: (job, approval, signal) =>
      options.store.waitForDecision(job.id, approval.id, {
        signal,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      }),
  };
}
