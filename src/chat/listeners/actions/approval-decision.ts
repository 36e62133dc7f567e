import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { Logger } from "pino";
import type { Decision } from "../../../core/rollout/approval-types.js";
import { answerApproval } from "../../../usecases/answer-approval.js";
import { ActionId, decodeActionValue } from "../../action-ids.js";
import type { SlackWebApi } from "../../slack-web-api.js";
import type { ChatUseCaseDeps } from "../../use-case-deps.js";
import {
  renderAnswerRefusal,
  renderClickNotRecorded,
  renderInvalidButton,
} from "../../views/render-answer-refusal.js";
import { clickReply } from "./click-reply.js";

export interface ApprovalActionDeps {
  readonly usecases: ChatUseCaseDeps;
  readonly api: SlackWebApi;
  readonly logger: Logger;
}

type Args = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

/** The decision each approval button stands for. */
export const DECISION_OF_ACTION = {
  [ActionId.Approve]: "approve",
  [ActionId.Abort]: "abort",
  [ActionId.KeepWaiting]: "keep-waiting",
  [ActionId.ContinueAnyway]: "continue",
  [ActionId.RestartTasks]: "restart-tasks",
  [ActionId.RestartAgain]: "restart-again",
  [ActionId.ContinueWithout]: "continue-without",
  [ActionId.RollBack]: "rollback",
} as const satisfies Record<ActionId, Decision>;

/**
 * A click on an approval prompt's button, on any replica: ack at once, check the clicker, record the decision durably
 * (first writer wins). The replica running the job picks it up and updates the prompt; refusals, duplicate and late
 * clicks get an ephemeral answer and change nothing.
 */
export function createApprovalActionListener(
  decision: Decision,
  deps: ApprovalActionDeps,
): (args: Args) => Promise<void> {
  // Slack delivers a click again when its ack was not seen (a Socket Mode connection closed first, an HTTP retry):
  // the same trigger is handled once.
  const seen = new Map<string, number>();
  const firstDelivery = (key: string) => {
    const now = Date.now();
    for (const [k, at] of seen) if (now - at > 10 * 60_000) seen.delete(k);
    if (seen.has(key)) return false;
    seen.set(key, now);
    return true;
  };
  return async ({ ack, body, action }) => {
    await ack();
    if (!firstDelivery(`${body.trigger_id}:${action.action_ts}:${body.user.id}`)) return;
    const userId = body.user.id;
    const log = deps.logger.child({ component: "approval-action", slackUserId: userId, decision });
    const { tell } = clickReply(body, deps.api, log);
    const value = decodeActionValue(action.value ?? "");
    if (value.kind === "error" || value.value.approvalId === undefined) {
      log.warn(
        { reason: value.kind === "error" ? value.message : "no approval id" },
        "malformed button value",
      );
      await tell(renderInvalidButton());
      return;
    }
    const { jobId, approvalId } = value.value;
    try {
      const outcome = await answerApproval(deps.usecases, { jobId, approvalId, decision, userId });
      if (outcome.kind === "refused") await tell(renderAnswerRefusal(outcome.reason));
      else log.info({ jobId, approvalId }, "decision recorded");
    } catch (err) {
      log.error({ err, jobId }, "decision could not be recorded");
      await tell(renderClickNotRecorded());
    }
  };
}
