import type { App, BlockButtonAction } from "@slack/bolt";
import type { Logger } from "pino";
import { answerFleetStage } from "../../../usecases/fleet-requests.js";
import { fleetRefusalText } from "../../../wording/fleet-status-text.js";
import { decodeActionValue, FleetActionId } from "../../action-ids.js";
import type { SlackWebApi } from "../../slack-web-api.js";
import type { ChatUseCaseDeps } from "../../use-case-deps.js";
import { escapeMrkdwn } from "../../views/limits.js";
import { notice } from "../../views/notice.js";
import { renderClickNotRecorded, renderInvalidButton } from "../../views/render-answer-refusal.js";
import { clickReply } from "./click-reply.js";

/**
 * The buttons of a fleet's stage prompt, on any replica: ack at once, check the clicker, record the answer (first
 * answer wins). The replica running the fleet reads it, starts the stage or stops, and updates the prompt.
 */
export function registerFleetStageActions(
  app: App,
  deps: { readonly usecases: ChatUseCaseDeps; readonly api: SlackWebApi; readonly logger: Logger },
): void {
  const decisions = [
    [FleetActionId.ApproveStage, "approve"],
    [FleetActionId.AbortFleet, "abort"],
  ] as const;
  for (const [actionId, decision] of decisions)
    app.action<BlockButtonAction>(actionId, async ({ ack, body, action }) => {
      await ack();
      const userId = body.user.id;
      const log = deps.logger.child({ component: "fleet-stage-action", slackUserId: userId, decision });
      const { channel, tell } = clickReply(body, deps.api, log);
      const value = decodeActionValue(action.value ?? "");
      const [fleet, stageText] = value.kind === "ok" ? (value.value.approvalId ?? "").split(":") : [];
      const stage = Number(stageText);
      if (value.kind === "error" || fleet === undefined || fleet === "" || !Number.isInteger(stage)) {
        await tell(renderInvalidButton());
        return;
      }
      try {
        const answer = await answerFleetStage(deps.usecases, {
          fleet,
          runId: value.value.jobId,
          stage,
          decision,
          requester: { kind: "slack", userId, channelId: channel ?? "" },
        });
        if (answer.kind === "refused")
          await tell(notice("Nothing was changed", [escapeMrkdwn(fleetRefusalText(answer.reason, ""))]));
        else log.info({ fleet, stage, runId: value.value.jobId }, "fleet stage answered");
      } catch (err) {
        log.error({ err, fleet }, "fleet stage answer could not be recorded");
        await tell(renderClickNotRecorded());
      }
    });
}
