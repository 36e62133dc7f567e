import type { Button, KnownBlock } from "@slack/types";
import type { ApprovalRecord, Decision, PendingApproval } from "../../core/rollout/approval-types.js";
import type { RolloutState } from "../../core/rollout/rollout-state.js";
import { approvalDetails, approvalPrompt } from "../../wording/approval-text.js";
import { ActionId, encodeActionValue } from "../action-ids.js";
import { actions, button, confirmDialog, context, message, section, type ViewMessage } from "./blocks.js";
import { mention, utcTime } from "./format.js";
import { escapeMrkdwn, fitLines, MAX_LINE, MAX_SECTION_TEXT, truncateText } from "./limits.js";
import { approvalLabel } from "./rollout-mrkdwn.js";

const MAX_PROMPT = 1000;
const MAX_DETAIL_LINES = 10;

/**
 * An approval prompt: a normal thread message (the team must see who decided), the prompt, bounded details and one
 * button per offered decision. Abort, Continue anyway, Restart it again and Continue without it ask for confirmation
 * (misclicks only: who may click is checked by the action handler).
 */
export function renderApprovalPrompt(state: RolloutState, approval: PendingApproval): ViewMessage {
  const buttons = approval.options.map((d) => decisionButton(state, approval, d));
  const blocks: KnownBlock[] = [
    ...promptBlocks(state, approval, false),
    actions(`approval:${approval.id}`, buttons),
  ];
  return message(
    `🙋 Approval needed (${approvalLabel(approval.kind)}) on ${escapeMrkdwn(state.cluster)}: ${promptText(approval)}`,
    blocks,
  );
}

/** The prompt after the decision: the same content, no buttons, who decided what and when. */
export function renderApprovalDecided(
  state: RolloutState,
  approval: PendingApproval,
  record: ApprovalRecord,
): ViewMessage {
  const outcome = decisionText(record);
  const blocks: KnownBlock[] = [...promptBlocks(state, approval, true), section(outcome)];
  return message(`${approvalLabel(approval.kind)} on ${escapeMrkdwn(state.cluster)}: ${outcome}`, blocks);
}

/** "✅ Approved by <@U2> at 14:03 UTC", "🛑 Aborted by …", "⏳ Keep waiting (asked by …)", "⚠️ Continued anyway by …". */
function decisionText(record: ApprovalRecord): string {
  const who = mention(record.by);
  const at = utcTime(record.at);
  switch (record.decision) {
    case "approve":
      return `✅ Approved by ${who} at ${at}`;
    case "abort":
      return `🛑 Aborted by ${who} at ${at}`;
    case "keep-waiting":
      return `⏳ Keep waiting (asked by ${who} at ${at})`;
    case "continue":
      return record.kind === "recently-started"
        ? `⏭️ Counted as restarted by ${who} at ${at}`
        : `⚠️ Continued anyway by ${who} at ${at}`;
    case "restart-tasks":
      return `🔁 Failed tasks restarted by ${who} at ${at}`;
    case "restart-again":
      return `🔁 Restarted again by ${who} at ${at}`;
    case "continue-without":
      return `⏭️ Continued without it by ${who} at ${at}`;
    case "rollback":
      return `↩️ Rolled back by ${who} at ${at}`;
  }
}

function promptText(approval: PendingApproval): string {
  return truncateText(escapeMrkdwn(approvalPrompt(approval)), MAX_PROMPT);
}

function promptBlocks(state: RolloutState, approval: PendingApproval, decided: boolean): KnownBlock[] {
  const title = decided
    ? `*Approval: ${approvalLabel(approval.kind)}*`
    : `*🙋 Approval needed: ${approvalLabel(approval.kind)}*`;
  const blocks: KnownBlock[] = [section(`${title}\n${promptText(approval)}`)];
  const details = approvalDetails(approval);
  if (details.length > 0) {
    const lines = details.map((d) => `• ${truncateText(escapeMrkdwn(d), MAX_LINE)}`);
    blocks.push(section(fitLines(lines, MAX_SECTION_TEXT, MAX_DETAIL_LINES).join("\n")));
  }
  const step = approval.step === null ? undefined : state.steps.find((s) => s.step === approval.step);
  blocks.push(
    context(
      escapeMrkdwn(state.cluster),
      step === undefined
        ? "whole rollout"
        : `step ${step.step}/${state.steps.length} · ${escapeMrkdwn(step.worker)}`,
      `asked at ${utcTime(approval.askedAt)}`,
      `requested by ${mention(state.requestedBy)}`,
    ),
  );
  return blocks;
}

function decisionButton(state: RolloutState, approval: PendingApproval, decision: Decision): Button {
  const value = encodeActionValue({ jobId: state.jobId, approvalId: approval.id });
  const step = approval.step === null ? undefined : state.steps.find((s) => s.step === approval.step);
  const where = step === undefined ? "" : ` Step ${step.step} (${step.worker})`;
  const recent = approval.kind === "recently-started";
  switch (decision) {
    case "approve":
      if (recent)
        return button({
          text: "Restart them too",
          actionId: ActionId.Approve,
          value,
          confirm: confirmDialog({
            title: "Restart them again?",
            text: "They started long after the others, perhaps restarted by a rollout whose record was lost. Restarting them again is a second restart.",
            confirm: "Restart them too",
            deny: "Cancel",
          }),
        });
      return button({ text: "Approve", actionId: ActionId.Approve, value, style: "primary" });
    case "keep-waiting":
      return button({ text: "Keep waiting", actionId: ActionId.KeepWaiting, value });
    case "restart-again":
      return button({
        text: "Restart it again",
        actionId: ActionId.RestartAgain,
        value,
        style: "primary",
        confirm: confirmDialog({
          title: "Restart it again?",
          text: `${where === "" ? "The worker" : where.trim()} has not come back since its restart. The executor restarts it once more and the step waits for it again.`,
          confirm: "Restart it again",
          deny: "Cancel",
        }),
      });
    case "continue-without":
      return button({
        text: "Continue without it",
        actionId: ActionId.ContinueWithout,
        value,
        confirm: confirmDialog({
          title: "Continue without this worker?",
          text: `${where === "" ? "This step" : where.trim()} is skipped and its worker left as it is (not back). The next worker is restarted with one worker fewer, and the final report says it was not brought back.`,
          confirm: "Continue without it",
          deny: "Cancel",
        }),
      });
    case "rollback":
      return button({
        text: "Roll back this worker",
        actionId: ActionId.RollBack,
        value,
        style: "primary",
        confirm: confirmDialog({
          title: "Roll this worker back?",
          text: `${where === "" ? "The canary" : where.trim()}: the canary is restarted on the version it left, through the same settle gate; no other worker is restarted and the rollout ends failed.`,
          confirm: "Roll back",
          deny: "Cancel",
        }),
      });
    case "restart-tasks":
      return button({
        text: "Restart the failed tasks",
        actionId: ActionId.RestartTasks,
        value,
        style: "primary",
      });
    case "abort":
      return button({
        text: "Abort",
        actionId: ActionId.Abort,
        value,
        style: "danger",
        confirm: confirmDialog({
          title: `Abort the rollout of ${state.cluster}?`,
          text: `Nothing more will be restarted. Workers already restarted stay on their new version.${where === "" ? "" : `${where} stays as it is now.`} The final report lists which worker runs what.`,
          confirm: "Abort rollout",
          deny: "Cancel",
          style: "danger",
        }),
      });
    case "continue":
      if (recent)
        return button({
          text: "Skip them (count as restarted)",
          actionId: ActionId.ContinueAnyway,
          value,
          style: "primary",
        });
      return button({
        text: "Continue anyway",
        actionId: ActionId.ContinueAnyway,
        value,
        confirm: confirmDialog({
          title: "Continue without a passed gate?",
          text: `${where === "" ? "This step" : where.trim()} has not passed the settle gate. It will be marked "continued anyway" and the next worker restarted while the cluster may not be settled.`,
          confirm: "Continue anyway",
          deny: "Cancel",
        }),
      });
  }
}
