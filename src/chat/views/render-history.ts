import { formatDuration } from "../../core/format-duration.js";
import { plural } from "../../core/plural.js";
import { taskSecondsText } from "../../wording/task-time-text.js";
import { message, section, sectionsOf, type ViewMessage } from "./blocks.js";
import { channelLink, link, mention, utcDateTime } from "./format.js";
import { escapeMrkdwn } from "./limits.js";

/** One finished rollout; mirrors `HistoryEntry` (src/jobs/store/audit-and-history.ts), so one can be passed as is. */
export interface HistoryViewEntry {
  readonly jobId: string;
  readonly cluster: string;
  readonly target: string;
  readonly result: "succeeded" | "aborted" | "failed";
  readonly requestedBy: string;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly stepsDone: number;
  readonly stepsTotal: number;
  readonly tasksMoved: number;
  readonly taskDowntimeMs: number;
  /** The longest data-flow gap measured (null or absent: not visible). */
  readonly maxDataGapMs?: number | null;
  readonly thread: { readonly channel: string; readonly ts: string } | null;
  /** `chat.getPermalink` of the thread when the caller has it. */
  readonly permalink?: string | null;
}

const ICON = { succeeded: "✅", aborted: "🛑", failed: "❌" } as const;
/** Rollouts shown at most; older ones are counted. */
const MAX_HISTORY_SHOWN = 20;

/** The last rollouts (newest first as given), for an ephemeral reply. */
export function renderHistory(entries: readonly HistoryViewEntry[], cluster?: string): ViewMessage {
  const name = escapeMrkdwn(cluster ?? entries[0]?.cluster ?? "this cluster");
  if (entries.length === 0) {
    const text = `No finished rollout of ${name} is recorded.`;
    return message(text, [section(text)]);
  }
  const shown = entries.slice(0, MAX_HISTORY_SHOWN);
  const title = `*Last ${shown.length === 1 ? "rollout" : plural(shown.length, "rollout")} of ${name}*`;
  const lines = shown.map(entryText);
  if (entries.length > shown.length)
    lines.push(`+${entries.length - shown.length} more older rollouts not shown`);
  return message(`${shown.length} recent rollouts of ${name}`, [section(title), ...sectionsOf(lines, 10)]);
}

function entryText(e: HistoryViewEntry): string {
  const thread =
    e.thread === null ? "" : ` · ${link(e.permalink, "thread")} in ${channelLink(e.thread.channel)}`;
  return [
    `${ICON[e.result]} *${utcDateTime(e.startedAt)}* · ${escapeMrkdwn(e.target)} · ${e.result} after ${formatDuration(e.finishedAt - e.startedAt)}`,
    `      ${e.stepsDone}/${plural(e.stepsTotal, "step")} · ${plural(e.tasksMoved, "task")} moved · downtime ${taskSecondsText(e.taskDowntimeMs)}${e.maxDataGapMs === null || e.maxDataGapMs === undefined ? "" : ` · longest data gap ${formatDuration(e.maxDataGapMs)}`} · by ${mention(e.requestedBy)}${thread}`,
  ].join("\n");
}
