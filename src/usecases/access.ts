import type { ClusterConfig, Config } from "../config/schema.js";
import type { ChannelNotAllowed, UnknownCluster } from "./refusals.js";

/**
 * Who asks, as the use-cases see it. A Slack user is checked against the cluster's access lists (channels,
 * requesters, approvers: Slack ids and user groups). A terminal user (`connect-roll run`, `abort`) has no Slack
 * identity and names itself (`user@host`, from the operating system): the lists cannot name it and nothing
 * authenticates it, so only the checks that do not depend on who asks apply (the change window, the lock). Access
 * from a terminal is whoever holds the configuration, the cluster's credentials and the bot's Redis.
 */
export type Requester =
  | { readonly kind: "slack"; readonly userId: string; readonly channelId: string }
  | { readonly kind: "terminal"; readonly user: string };

/** What a requester is recorded as (`requestedBy`, `by` of a control request or decision). */
export function requesterId(requester: Requester): string {
  return requester.kind === "slack" ? requester.userId : requester.user;
}

/** Slack user ids and user-group ids. An empty list means nobody. */
export interface AccessList {
  users: readonly string[];
  userGroups: readonly string[];
}

export type AuthorizationResult = { kind: "allowed" } | { kind: "denied"; reason: string };

export interface CheckContext {
  /** The cluster named in the reason ("… list for prod-cluster"). */
  cluster?: string;
}

export interface ApproveContext extends CheckContext {
  requestedBy: string;
  fourEyes: boolean;
}

/**
 * The port the use-cases ask "may this Slack user …?". `reason` is a sentence the user is shown as is. The adapter
 * is `createAuthorizer` (src/chat/authorize.ts: group membership through Slack's Web API, cached).
 */
export interface Authorizer {
  canRequest(userId: string, access: AccessList, context?: CheckContext): Promise<AuthorizationResult>;
  canApprove(userId: string, access: AccessList, context: ApproveContext): Promise<AuthorizationResult>;
  /** Forgets cached group memberships (all, or one group). */
  clearCache(groupId?: string): void;
}

/** A cluster's effective access: its own `access` fields, else the global `slack` ones. */
export type ClusterAccess = Config["slack"];

export function accessOf(config: Config, cluster: ClusterConfig | undefined): ClusterAccess {
  const own = cluster?.access ?? {};
  return {
    channels: own.channels ?? config.slack.channels,
    requesters: own.requesters ?? config.slack.requesters,
    approvers: own.approvers ?? config.slack.approvers,
    fourEyes: own.fourEyes ?? config.slack.fourEyes,
    changeWindows: own.changeWindows ?? config.slack.changeWindows,
  };
}

/** False when a Slack requester typed the command in a channel the access does not list (empty: any channel). */
export function channelAllowed(access: ClusterAccess, requester: Requester): boolean {
  if (requester.kind !== "slack") return true;
  return access.channels.length === 0 || access.channels.includes(requester.channelId);
}

export type ClusterLookup =
  | { readonly kind: "found"; readonly clusterConfig: ClusterConfig; readonly access: ClusterAccess }
  | ChannelNotAllowed
  | UnknownCluster;

/**
 * The first checks of every command about a cluster, in order: the channel (Slack; against the global lists when the
 * cluster is unknown), then the cluster is configured.
 */
export function lookUpCluster(config: Config, cluster: string, requester: Requester): ClusterLookup {
  const clusterConfig = config.clusters[cluster];
  const access = accessOf(config, clusterConfig);
  if (!channelAllowed(access, requester)) return { kind: "channel-not-allowed", channels: access.channels };
  if (clusterConfig === undefined)
    return { kind: "unknown-cluster", cluster, known: Object.keys(config.clusters) };
  return { kind: "found", clusterConfig, access };
}
