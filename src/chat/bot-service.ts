import type { Logger } from "pino";
import { resolveTarget } from "../config/resolve-target.js";
import type { ClusterConfig, Config } from "../config/schema.js";
import { isAppError } from "../core/errors.js";
import type { Plan, RolloutTarget } from "../core/plan/plan-types.js";
import type { Decision, RolloutSettings } from "../core/rollout/rollout-types.js";
import type { HistoryEntry } from "../jobs/audit-and-history.js";
import { isFinished, type JobRecord, type SlackThread } from "../jobs/job-record.js";
import type { ControlAction, JobStore } from "../jobs/job-store.js";
import { rolloutStateOf } from "../jobs/rollout-record.js";
import type { RolloutService, StartResult } from "../jobs/rollout-service.js";
import type { AccessList, Authorizer } from "./authorize.js";
import { isWithinChangeWindow } from "./change-window.js";
import { readClusterOverviews } from "./cluster-overview.js";
import { type RolloutArgument, type RolloutPace, suggestClusters } from "./command-grammar.js";
import type { SlackMessage } from "./slack-web-api.js";
import { escapeMrkdwn } from "./views/limits.js";
import { renderHistory } from "./views/render-history.js";
import { type ClusterOverview, renderOverviewMessage } from "./views/render-overview.js";
import { renderPlanMessage } from "./views/render-plan-message.js";
import { renderStatus, type StatusEntry, statusStateOf } from "./views/render-status.js";

/** Who typed the command, and where. */
export interface Caller {
  readonly userId: string;
  readonly channelId: string;
}

export interface BotServiceOptions {
  readonly config: Config;
  readonly store: JobStore;
  readonly service: RolloutService;
  readonly authorizer: Authorizer;
  /** Wall clock (change windows, decision times). */
  readonly now: () => number;
  readonly logger: Logger;
  /** Maps a cluster's configuration to the engine's settings (the composition root's `rolloutSettingsFor`). */
  readonly settingsFor: (cluster: ClusterConfig, pace: RolloutPace | undefined) => RolloutSettings;
  /** Reads the cluster and plans (dry run). */
  readonly planFor: (
    name: string,
    cluster: ClusterConfig,
    target: RolloutTarget,
    pace?: RolloutPace,
  ) => Promise<Plan>;
  readonly commandName?: string;
}

/** A rollout that passed every check, ready to start. */
export interface PreparedRollout {
  readonly cluster: string;
  readonly target: RolloutTarget;
  readonly image: string | null;
  readonly settings: RolloutSettings;
  readonly requestedBy: string;
}

export type PrepareResult =
  | { kind: "ok"; rollout: PreparedRollout }
  | { kind: "refused"; reply: SlackMessage };

export type ApprovalOutcome = { kind: "recorded" } | { kind: "refused"; reply: SlackMessage };

export interface BotService {
  /** Refusal checks in order: channel, requester, cluster known, version, change window, store reachable, lock free. */
  prepareRollout(
    cluster: string,
    argument: RolloutArgument,
    pace: RolloutPace | undefined,
    caller: Caller,
  ): Promise<PrepareResult>;
  /** Starts the rollout with its thread (posted first: a job always knows where it reports). */
  startRollout(rollout: PreparedRollout, jobId: string, thread: SlackThread): Promise<StartResult>;
  plan(cluster: string, argument: RolloutArgument, caller: Caller): Promise<SlackMessage>;
  /** With a cluster: its rollout and lock. Without: every configured cluster (the Home tab's overview). */
  status(cluster: string | undefined, caller: Caller): Promise<SlackMessage>;
  /** Every configured cluster: rollout in progress, lock, last rollout, next change window. */
  overview(): Promise<ClusterOverview[]>;
  history(cluster: string, caller: Caller): Promise<SlackMessage>;
  control(action: ControlAction, cluster: string, caller: Caller): Promise<SlackMessage>;
  /** A button click on an approval prompt, from any replica. */
  decideApproval(input: {
    jobId: string;
    approvalId: string;
    decision: Decision;
    userId: string;
  }): Promise<ApprovalOutcome>;
  /** "locked by … since …, thread" for a lock holder. */
  lockedReply(cluster: string): Promise<SlackMessage>;
}

/** An ephemeral message in mrkdwn. Lines must already be escaped (mentions stay mentions). */
export function notice(title: string, lines: readonly string[] = []): SlackMessage {
  const text = [`*${title}*`, ...lines].join("\n").slice(0, 2900);
  return { text: title, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
}

/** A link to a thread that works in any client. */
export function threadLink(thread: SlackThread): string {
  return `<https://slack.com/archives/${thread.channel}/p${thread.ts.replace(".", "")}|thread in <#${thread.channel}>>`;
}

const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

export function createBotService(options: BotServiceOptions): BotService {
  const { config, store, service, authorizer } = options;
  const log = options.logger.child({ component: "bot-service" });
  const name = options.commandName ?? "/connect-roll";
  const clusterNames = Object.keys(config.clusters);

  const accessOf = (cluster: ClusterConfig | undefined) => {
    const own = cluster?.access ?? {};
    return {
      channels: own.channels ?? config.slack.channels,
      requesters: own.requesters ?? config.slack.requesters,
      approvers: own.approvers ?? config.slack.approvers,
      fourEyes: own.fourEyes ?? config.slack.fourEyes,
      changeWindows: own.changeWindows ?? config.slack.changeWindows,
    };
  };
  const argText = (a: RolloutArgument) => (a.kind === "restart" ? "restart" : a.version);

  function unknownCluster(cluster: string): SlackMessage {
    const close = suggestClusters(cluster, clusterNames);
    return notice(`Unknown cluster '${escapeMrkdwn(cluster)}'`, [
      close.length > 0
        ? `Did you mean ${close.map((c) => `\`${c}\``).join(", ")}?`
        : `Known clusters: ${clusterNames.map((c) => `\`${c}\``).join(", ") || "none configured"}.`,
      `Try \`${name} status\` to see what runs where.`,
    ]);
  }

  function channelRefusal(channels: readonly string[], caller: Caller): SlackMessage | null {
    if (channels.length === 0 || channels.includes(caller.channelId)) return null;
    return notice("This channel is not allowed for connect-roll", [
      `Use it in ${channels.map((c) => `<#${c}>`).join(", ")}.`,
    ]);
  }

  async function requester(
    userId: string,
    access: AccessList,
    cluster: string,
  ): Promise<SlackMessage | null> {
    const result = await authorizer.canRequest(userId, access, { cluster });
    if (result.kind === "allowed") return null;
    return notice("You may not do that", [result.reason, "Ask an admin to add you to the requesters list."]);
  }

  async function storeDown(): Promise<SlackMessage | null> {
    try {
      await store.ping();
      return null;
    } catch (err) {
      log.error({ err }, "store unreachable");
      return notice("The bot cannot reach its Redis store", [
        "Nothing was started. Try again in a minute; if it persists, tell whoever runs connect-roll (check REDIS_URL and Redis health).",
      ]);
    }
  }

  async function lockedReply(cluster: string): Promise<SlackMessage> {
    const holder = await store.readLock(cluster);
    if (holder === null)
      return notice(`${cluster} is busy`, ["Another rollout just started; try again in a moment."]);
    const job = await store.loadJob(holder.jobId).catch(() => null);
    const lines = [
      `Rollout \`${holder.jobId}\`${job === null ? "" : ` requested by <@${job.requestedBy}>`} holds it since ${utc(holder.since)} (replica \`${escapeMrkdwn(holder.owner)}\`).`,
    ];
    if (job?.thread) lines.push(`Follow it in the ${threadLink(job.thread)}.`);
    lines.push(`Wait for it to finish, or stop it with \`${name} abort ${cluster}\`.`);
    return notice(`${cluster} is locked by another rollout`, lines);
  }

  async function activeJob(cluster: string): Promise<JobRecord | null> {
    const jobs = await store.listJobs({ cluster, unfinishedOnly: true });
    return jobs.at(-1) ?? null;
  }

  return {
    lockedReply,

    async prepareRollout(cluster, argument, pace, caller) {
      const clusterConfig = config.clusters[cluster];
      const access = accessOf(clusterConfig);
      const channel = channelRefusal(access.channels, caller);
      if (channel) return { kind: "refused", reply: channel };
      if (clusterConfig === undefined) return { kind: "refused", reply: unknownCluster(cluster) };
      const who = await requester(caller.userId, access.requesters, cluster);
      if (who) return { kind: "refused", reply: who };
      const resolved = resolveTarget(clusterConfig, argText(argument));
      if (resolved.kind === "error") {
        return {
          kind: "refused",
          reply: notice("That version cannot be used", [escapeMrkdwn(resolved.message)]),
        };
      }
      const window = isWithinChangeWindow(access.changeWindows, options.now());
      if (window.kind === "closed") {
        return {
          kind: "refused",
          reply: notice(`${cluster} is outside its change window`, [
            `The next window opens ${window.next}. Try again then, or ask an admin about the change windows.`,
          ]),
        };
      }
      const down = await storeDown();
      if (down) return { kind: "refused", reply: down };
      if ((await store.readLock(cluster)) !== null)
        return { kind: "refused", reply: await lockedReply(cluster) };
      const t = resolved.target;
      return {
        kind: "ok",
        rollout: {
          cluster,
          target: { kind: t.kind, version: t.version ?? "", argument: t.argument },
          image: t.image,
          settings: options.settingsFor(clusterConfig, pace),
          requestedBy: caller.userId,
        },
      };
    },

    startRollout(rollout, jobId, thread) {
      return service.start({ ...rollout, jobId, thread });
    },

    async plan(cluster, argument, caller) {
      const clusterConfig = config.clusters[cluster];
      const access = accessOf(clusterConfig);
      const channel = channelRefusal(access.channels, caller);
      if (channel) return channel;
      if (clusterConfig === undefined) return unknownCluster(cluster);
      const refused = await requester(caller.userId, access.requesters, cluster);
      if (refused) return refused;
      const resolved = resolveTarget(clusterConfig, argText(argument));
      if (resolved.kind === "error")
        return notice("That version cannot be used", [escapeMrkdwn(resolved.message)]);
      const t = resolved.target;
      try {
        const plan = await options.planFor(cluster, clusterConfig, {
          kind: t.kind,
          version: t.version ?? "",
          argument: t.argument,
        });
        return renderPlanMessage(plan);
      } catch (err) {
        if (!isAppError(err)) throw err;
        log.warn({ err, cluster }, "plan failed");
        return notice(`Could not plan ${cluster}`, [
          escapeMrkdwn(err.message),
          "Check that the workers' REST API is reachable from the bot.",
        ]);
      }
    },

    async status(cluster, caller) {
      // Read paths still honour the channel restriction (status shows requesters and thread links).
      const channel = channelRefusal(
        accessOf(cluster === undefined ? undefined : config.clusters[cluster]).channels,
        caller,
      );
      if (channel) return channel;
      if (cluster === undefined) {
        const now = options.now();
        return renderOverviewMessage(await readClusterOverviews({ config, store, now }), now);
      }
      if (config.clusters[cluster] === undefined) return unknownCluster(cluster);
      const jobs = await store.listJobs({ unfinishedOnly: true, cluster });
      const entries: StatusEntry[] = [];
      for (const job of jobs) {
        const holder = await store.readLock(job.cluster);
        const state = (() => {
          try {
            return rolloutStateOf(job);
          } catch {
            return null;
          }
        })();
        entries.push({
          cluster: job.cluster,
          target: state?.target.argument ?? null,
          requestedBy: job.requestedBy,
          since: job.createdAt,
          state: state === null ? job.status : statusStateOf(state),
          lockOwner: holder?.jobId === job.id ? holder.owner : null,
          thread: job.thread,
        });
      }
      return renderStatus(entries);
    },

    overview: () => readClusterOverviews({ config, store, now: options.now() }),

    async history(cluster, caller) {
      const channel = channelRefusal(accessOf(config.clusters[cluster]).channels, caller);
      if (channel) return channel;
      if (config.clusters[cluster] === undefined) return unknownCluster(cluster);
      const entries: HistoryEntry[] = await store.history(cluster, 10);
      return renderHistory(entries, cluster);
    },

    async control(action, cluster, caller) {
      const clusterConfig = config.clusters[cluster];
      const access = accessOf(clusterConfig);
      const channel = channelRefusal(access.channels, caller);
      if (channel) return channel;
      if (clusterConfig === undefined) return unknownCluster(cluster);
      if (action === "resume") {
        // Resuming restarts workers again: only inside a change window, like a start.
        const window = isWithinChangeWindow(access.changeWindows, options.now());
        if (window.kind === "closed")
          return notice(`Outside the change windows of ${cluster}`, [
            `The rollout stays paused; resume it after ${window.next}.`,
          ]);
      }
      const asRequester = await authorizer.canRequest(caller.userId, access.requesters, { cluster });
      const asApprover =
        action === "abort" && asRequester.kind === "denied"
          ? await authorizer.canApprove(caller.userId, access.approvers, {
              cluster,
              requestedBy: "",
              fourEyes: false,
            })
          : asRequester;
      if (asApprover.kind === "denied")
        return notice("You may not do that", [asRequester.kind === "denied" ? asRequester.reason : ""]);
      const job = await activeJob(cluster);
      if (job === null)
        return notice(`No rollout of ${cluster} is running`, [
          `Start one with \`${name} ${cluster} <version|restart>\`.`,
        ]);
      const at = options.now();
      const result = await store.requestControl(job.id, { action, by: caller.userId, at });
      if (result.kind === "finished")
        return notice(`The rollout of ${cluster} is already over (${result.status})`);
      if (action === "abort" && job.pendingApproval !== null) {
        await store.decide(job.id, job.pendingApproval.id, { decision: "abort", by: caller.userId, at });
      }
      const what = {
        abort: "Abort requested: no further worker will be restarted",
        pause: "Pause requested: it stops before the next restart",
        resume: "Resume requested",
      }[action];
      return notice(`${what} (${cluster})`, job.thread ? [`See the ${threadLink(job.thread)}.`] : []);
    },

    async decideApproval({ jobId, approvalId, decision, userId }) {
      let job: JobRecord;
      try {
        job = await store.loadJob(jobId);
      } catch (err) {
        if (!isAppError(err)) throw err;
        log.warn({ err, jobId }, "approval click for an unreadable job");
        return {
          kind: "refused",
          reply: notice("This rollout cannot be found", [
            "It may have been cleaned up; nothing was changed.",
          ]),
        };
      }
      if (isFinished(job.status)) {
        return {
          kind: "refused",
          reply: notice(`This rollout is already over (${job.status})`, ["Nothing was changed."]),
        };
      }
      const state = (() => {
        try {
          return rolloutStateOf(job);
        } catch {
          return null;
        }
      })();
      const pending = state?.phase.kind === "awaiting-approval" ? state.phase.approval : null;
      if (pending?.id === approvalId && !pending.options.includes(decision)) {
        return {
          kind: "refused",
          reply: notice("That answer is not offered by this prompt", ["Nothing was changed."]),
        };
      }
      const access = accessOf(config.clusters[job.cluster]);
      // Stopping is always allowed to the requester (as `/connect-roll abort` is); four-eyes guards going on.
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
      if (allowed.kind === "denied") {
        return {
          kind: "refused",
          reply: notice("You may not answer this prompt", [allowed.reason, "Nothing was changed."]),
        };
      }
      const result = await store.decide(jobId, approvalId, { decision, by: userId, at: options.now() });
      switch (result.kind) {
        case "recorded":
          return { kind: "recorded" };
        case "already-decided":
          return {
            kind: "refused",
            reply: notice(`Already decided by <@${result.decision.by}>`, [
              `${result.decision.decision} at ${utc(result.decision.at)}; your click changed nothing.`,
            ]),
          };
        case "not-awaiting":
          return {
            kind: "refused",
            reply: notice("This prompt is no longer waiting for an answer", [
              "The rollout has moved on; your click changed nothing.",
            ]),
          };
      }
    },
  };
}
