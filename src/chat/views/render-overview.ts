import type { KnownBlock } from "@slack/types";
import { formatDuration } from "../../core/format-duration.js";
import { context, divider, header, message, section, type ViewMessage } from "./blocks.js";
import { channelLink, link, mention, progressBar, utcDateTime } from "./format.js";
import { escapeMrkdwn, MAX_LINE, truncateText } from "./limits.js";

/** Everything the team needs to know about one configured cluster, at one instant. */
export interface ClusterOverview {
  readonly cluster: string;
  /** The unfinished rollout of the cluster, if any. */
  readonly active: {
    readonly jobId: string;
    /** "3.6.1 → 3.7.1", "restart"; null when its checkpoint is unreadable. */
    readonly target: string | null;
    /** "running · step 2/3 · 1/3 done", "paused by U1 before step 2", "awaiting approval: eager window". */
    readonly state: string;
    readonly paused: boolean;
    readonly stepsDone: number;
    readonly stepsTotal: number;
    readonly requestedBy: string;
    readonly since: number;
    readonly permalink: string | null;
    readonly thread: { readonly channel: string; readonly ts: string } | null;
  } | null;
  /** Who holds the cluster's lock (a rollout, or one being resumed), null when free. */
  readonly lock: { readonly jobId: string; readonly owner: string; readonly since: number } | null;
  /** The newest finished rollout. */
  readonly last: {
    readonly target: string;
    readonly result: string;
    readonly finishedAt: number;
    readonly requestedBy: string;
    /** The longest data-flow gap it measured (null: not visible). */
    readonly maxDataGapMs: number | null;
    readonly permalink: string | null;
  } | null;
  /** "open now", "always open (no change windows)", or "Sat 22:00 Europe/Berlin". */
  readonly window:
    | { readonly kind: "open" }
    | { readonly kind: "always" }
    | { readonly kind: "closed"; readonly next: string };
}

const RESULT_ICON: Readonly<Record<string, string>> = { succeeded: "✅", aborted: "🛑", failed: "❌" };

function clusterLines(o: ClusterOverview): string[] {
  const lines = [`*${escapeMrkdwn(o.cluster)}*`];
  const a = o.active;
  if (a === null) lines.push("⚪ no rollout running");
  else {
    const icon = a.paused ? "⏸️" : a.state.startsWith("awaiting approval") ? "✋" : "🔄";
    const thread =
      a.thread === null
        ? "no thread yet"
        : `${link(a.permalink, "thread")} in ${channelLink(a.thread.channel)}`;
    lines.push(
      `${icon} ${a.target === null ? "" : `${escapeMrkdwn(a.target)} · `}${truncateText(escapeMrkdwn(a.state), MAX_LINE)}`,
      `${progressBar(a.stepsDone, a.stepsTotal)} · by ${mention(a.requestedBy)} since ${utcDateTime(a.since)} · ${thread}`,
    );
  }
  lines.push(
    o.lock === null
      ? "🔓 lock free"
      : `🔒 locked by \`${escapeMrkdwn(o.lock.jobId)}\` on replica \`${escapeMrkdwn(o.lock.owner)}\` since ${utcDateTime(o.lock.since)}`,
  );
  lines.push(
    o.last === null
      ? "last rollout: none yet"
      : `last rollout: ${RESULT_ICON[o.last.result] ?? ""} ${escapeMrkdwn(o.last.target)} ${escapeMrkdwn(o.last.result)} ${utcDateTime(o.last.finishedAt)} by ${mention(o.last.requestedBy)}${o.last.maxDataGapMs === null ? "" : ` · longest data gap ${formatDuration(o.last.maxDataGapMs)}`}${o.last.permalink === null ? "" : ` · ${link(o.last.permalink, "thread")}`}`,
  );
  lines.push(
    o.window.kind === "always"
      ? "change window: always open"
      : o.window.kind === "open"
        ? "change window: open now"
        : `change window: next opens ${escapeMrkdwn(o.window.next)}`,
  );
  return lines;
}

function summary(overviews: readonly ClusterOverview[]): string {
  const running = overviews.filter((o) => o.active !== null).length;
  return `${overviews.length} ${overviews.length === 1 ? "cluster" : "clusters"} · ${running} ${running === 1 ? "rollout" : "rollouts"} in progress`;
}

function clusterBlocks(overviews: readonly ClusterOverview[], max: number): KnownBlock[] {
  const shown = overviews.slice(0, max);
  const blocks: KnownBlock[] = shown.map((o) => section(clusterLines(o).join("\n")));
  if (overviews.length > shown.length)
    blocks.push(
      context(`+${overviews.length - shown.length} more clusters: use \`/connect-roll status <cluster>\``),
    );
  return blocks;
}

/** `/connect-roll status` with no cluster: every configured cluster, for one person (ephemeral). */
export function renderOverviewMessage(overviews: readonly ClusterOverview[], now: number): ViewMessage {
  if (overviews.length === 0) {
    const text = "No cluster is configured.";
    return message(text, [section(text)]);
  }
  const text = `connect-roll: ${summary(overviews)}`;
  return message(text, [
    section(`*${summary(overviews)}*`),
    ...clusterBlocks(overviews, 45),
    context(`as of ${utcDateTime(now)}`),
  ]);
}

/** Slack's limit of blocks in a Home tab view. */
const MAX_HOME_BLOCKS = 100;

/** A configured fleet and its latest run as the status lines say it (`fleet status`); null: no run on record. */
export interface FleetOverview {
  readonly fleet: string;
  readonly lines: readonly string[] | null;
}

function fleetText(f: FleetOverview): string {
  if (f.lines === null) return `*${escapeMrkdwn(f.fleet)}*: no run on record`;
  const [headline = "", ...rest] = f.lines;
  return [`*${escapeMrkdwn(headline)}*`, ...rest.map((l) => escapeMrkdwn(l.trim()))].join("\n");
}

/** The App Home tab (`views.publish`): the same overview, with a header and dividers; at most 100 blocks. */
export function renderHomeView(
  overviews: readonly ClusterOverview[],
  now: number,
  fleets: readonly FleetOverview[] = [],
): { type: "home"; blocks: KnownBlock[] } {
  const blocks: KnownBlock[] = [
    header("connect-roll"),
    context(summary(overviews), `as of ${utcDateTime(now)}`),
  ];
  const clusters = clusterBlocks(overviews, 45);
  for (const block of clusters) blocks.push(divider(), block);
  if (fleets.length > 0) blocks.push(divider(), header("Fleets"));
  for (const fleet of fleets.slice(0, 20)) blocks.push(section(fleetText(fleet)));
  blocks.push(
    divider(),
    context(
      "Start a rollout with `/connect-roll <cluster> <version|restart>`; `/connect-roll help` for more.",
    ),
  );
  return { type: "home", blocks: blocks.slice(0, MAX_HOME_BLOCKS) };
}
