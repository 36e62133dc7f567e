import type { KnownBlock } from "@slack/types";
import type { RolloutState } from "../../core/rollout/rollout-state.js";
import { stepsDone } from "../../core/rollout/summarize.js";
import type { RolloutStatus } from "../../usecases/read-status.js";
import { message, section, sectionsOf, type ViewMessage } from "./blocks.js";
import { channelLink, link, mention, utcDateTime } from "./format.js";
import { escapeMrkdwn, MAX_LINE, truncateText } from "./limits.js";
import { approvalLabel } from "./rollout-mrkdwn.js";

/** One running rollout or held lock, as `/connect-roll status` shows it. */
export interface StatusEntry {
  readonly cluster: string;
  /** "3.6.1 → 3.7.1", "restart"; null when only a lock is known. */
  readonly target: string | null;
  /** Slack user id (or CLI user) who started it. */
  readonly requestedBy: string;
  /** When it started (or the lock was taken), ms since the epoch. */
  readonly since: number;
  /** Short state, e.g. from `statusStateOf`: "running · step 3/6". */
  readonly state: string;
  /** The replica holding the cluster's lock, null when unknown. */
  readonly lockOwner: string | null;
  readonly thread: { readonly channel: string; readonly ts: string } | null;
  /** `chat.getPermalink` of the thread when the caller has it. */
  readonly permalink?: string | null;
}

/** The short state of a rollout for a status line: "running · step 3/6", "awaiting approval: eager window". */
export function statusStateOf(state: RolloutState): string {
  const p = state.phase;
  const progress = state.steps.length === 0 ? "" : ` · ${stepsDone(state)}/${state.steps.length} done`;
  switch (p.kind) {
    case "planning":
      return "planning";
    case "paused":
      return `paused by ${p.by} before step ${p.step}${progress}`;
    case "awaiting-approval":
      return `awaiting approval: ${approvalLabel(p.approval.kind)}${progress}`;
    case "finished":
      return p.result;
    default:
      return `running · step ${p.step}/${state.steps.length}${progress}`;
  }
}

/** A rollout as `readStatus` found it, as a status line shows it. */
export function statusEntryOf(rollout: RolloutStatus): StatusEntry {
  const { job, state } = rollout;
  return {
    cluster: job.cluster,
    target: state?.target.argument ?? null,
    requestedBy: job.requestedBy,
    since: job.createdAt,
    state: state === null ? job.status : statusStateOf(state),
    lockOwner: rollout.lockOwner,
    thread: job.thread,
  };
}

/** Running rollouts and locks, for an ephemeral reply. */
export function renderStatus(entries: readonly StatusEntry[]): ViewMessage {
  if (entries.length === 0) {
    const text = "No rollout is running and no cluster is locked.";
    return message(text, [section(text)]);
  }
  const lines = entries.map(entryText);
  const blocks: KnownBlock[] = [
    section(`*${entries.length} active ${entries.length === 1 ? "rollout" : "rollouts"}*`),
    ...sectionsOf(lines, 40),
  ];
  return message(
    `${entries.length} active connect-roll rollouts: ${entries.map((e) => escapeMrkdwn(e.cluster)).join(", ")}`,
    blocks,
  );
}

/** What `status <cluster> --chart` says of the chart. */
export type ChartNotice =
  | { readonly kind: "none"; readonly cluster: string }
  | {
      readonly kind: "posted";
      readonly cluster: string;
      readonly channel: string;
      readonly inThread: boolean;
    }
  | { readonly kind: "failed"; readonly cluster: string; readonly why: string };

/** The chart's notice, under the status when given (else alone). */
export function renderChartNotice(status: ViewMessage | null, notice: ChartNotice): ViewMessage {
  const cluster = escapeMrkdwn(notice.cluster);
  const text =
    notice.kind === "none"
      ? `No rollout of ${cluster} is running: no chart to post.`
      : notice.kind === "posted"
        ? `📈 The timeline chart of ${cluster}'s rollout is posted ${notice.inThread ? "in its thread" : "here"} (${channelLink(notice.channel)}).`
        : `⚠️ The timeline chart of ${cluster}'s rollout could not be posted: ${escapeMrkdwn(notice.why)}.`;
  return status === null
    ? message(text, [section(text)])
    : message(`${status.text} ${text}`, [...status.blocks, section(text)]);
}

function entryText(e: StatusEntry): string {
  const target = e.target === null ? "" : ` · ${escapeMrkdwn(e.target)}`;
  const lock = e.lockOwner === null ? "" : ` · lock held by \`${escapeMrkdwn(e.lockOwner)}\``;
  const thread =
    e.thread === null ? "no thread" : `${link(e.permalink, "thread")} in ${channelLink(e.thread.channel)}`;
  return [
    `*${escapeMrkdwn(e.cluster)}*${target} · ${truncateText(mentionsIn(e.state), MAX_LINE)}`,
    `by ${mention(e.requestedBy)} since ${utcDateTime(e.since)}${lock} · ${thread}`,
  ].join("\n");
}

/** Escapes a state text, turning "by U123" back into a mention. */
function mentionsIn(text: string): string {
  return escapeMrkdwn(text).replace(/\bby ([UW][A-Z0-9]+)\b/g, "by <@$1>");
}
