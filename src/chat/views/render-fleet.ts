import type { FleetRunRecord } from "../../jobs/store/fleet-record.js";
import type { FleetEvent } from "../../usecases/drive-fleet.js";
import { fleetEventLine, fleetStatusLines } from "../../wording/fleet-status-text.js";
import { encodeActionValue, FleetActionId } from "../action-ids.js";
import type { SlackMessage } from "../slack-web-api.js";
import { actions, button, confirmDialog, message, section, type ViewMessage } from "./blocks.js";
import { escapeMrkdwn } from "./limits.js";
import { threadLink } from "./notice.js";

/** Escaped text with "by U0123ABCD" shown as a mention (who aborted, who approved). */
function withMentions(text: string): string {
  return escapeMrkdwn(text).replace(/\bby ([UW][A-Z0-9]{6,})\b/g, "by <@$1>");
}

/** What a fleet's parent message leads with, by the run's status. */
const ICON: Record<string, string> = { running: "⏳", succeeded: "✅", failed: "❌", aborted: "🛑" };

/** A fleet's parent message: the run's headline and a line per stage with each cluster's status. */
export function renderFleetParent(run: FleetRunRecord): ViewMessage {
  const [headline = "", ...rest] = fleetStatusLines(run, true, null);
  const text = `connect-roll · ${headline}`;
  const body = `${ICON[run.status] ?? "⏳"} *${withMentions(text)}*\n${rest.map((l) => escapeMrkdwn(l.trim())).join("\n")}`;
  return message(text, [section(body)]);
}

/** A fleet event as a reply in the fleet's thread. */
export function renderFleetEvent(event: FleetEvent): SlackMessage {
  const text = fleetEventLine(event);
  return { text, blocks: [section(withMentions(text))] };
}

/** The reply that links a cluster's own rollout thread from the fleet's. */
export function renderClusterStarted(
  cluster: string,
  jobId: string,
  thread: { channel: string; ts: string },
): SlackMessage {
  const text = `${cluster}: rolling (job ${jobId})`;
  return { text, blocks: [section(`${escapeMrkdwn(text)}: follow it in its ${threadLink(thread)}`)] };
}

/** Asks to start a stage: Approve starts it, Abort aborts the fleet (confirmed first). */
export function renderStagePrompt(
  fleet: string,
  runId: string,
  stage: number,
  label: string,
  target: string,
): ViewMessage {
  const text = `Start ${label} of fleet ${fleet} to ${target}?`;
  const value = encodeActionValue({ jobId: runId, approvalId: `${fleet}:${stage}` });
  return message(text, [
    section(
      `✋ *${escapeMrkdwn(text)}* Every cluster of the stage before it succeeded and kept its data flowing.`,
    ),
    actions(`fleet-stage:${runId}:${stage}`, [
      button({ text: "Approve", actionId: FleetActionId.ApproveStage, value, style: "primary" }),
      button({
        text: "Abort the fleet",
        actionId: FleetActionId.AbortFleet,
        value,
        style: "danger",
        confirm: confirmDialog({
          title: "Abort the fleet?",
          text: `No further stage of ${fleet} will start.`,
          confirm: "Abort",
          deny: "Cancel",
          style: "danger",
        }),
      }),
    ]),
  ]);
}

/** The prompt once answered: no buttons, who answered what. */
export function renderStageAnswered(label: string, decision: "approve" | "abort", by: string): ViewMessage {
  const text =
    decision === "approve"
      ? `${label}: approved by <@${by}>, starting`
      : `${label}: fleet aborted by <@${by}>`;
  return message(text, [section(`${decision === "approve" ? "👍" : "🛑"} ${text}`)]);
}
