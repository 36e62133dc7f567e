/**
 * Who may request and who may approve a rollout. Slack has no per-button permissions, so every command and
 * click is checked here against the cluster's access list: Slack user ids and user-group ids.
 *
 * - An access list with no users and no groups means **nobody** (explicit, never "everybody").
 * - Group membership comes from `lookupUserGroup` (`usergroups.users.list`) and is cached for `cacheTtlMs`.
 * - A lookup failure denies (fail closed) with a reason, and is not cached: the next check asks again.
 * - Four-eyes (optional per check): the requester cannot approve their own rollout.
 *
 * Results are values; `reason` is a sentence shown to the user (Slack mrkdwn: ids are rendered as mentions
 * by default, `<@U1>` and `<!subteam^S1>`, which Slack shows as @name; override with `describeUser/Group`).
 */
import type { AccessList, AuthorizationResult, Authorizer, CheckContext } from "../usecases/access.js";

export interface AuthorizerOptions {
  lookupUserGroup: (groupId: string) => Promise<readonly string[]>;
  cacheTtlMs: number;
  now: () => number;
  describeUser?: (userId: string) => string;
  describeGroup?: (groupId: string) => string;
}

type Membership = { kind: "member" } | { kind: "not-member" } | { kind: "lookup-failed"; groupId: string };

export function createAuthorizer(options: AuthorizerOptions): Authorizer {
  const describeUser = options.describeUser ?? ((id: string) => `<@${id}>`);
  const describeGroup = options.describeGroup ?? ((id: string) => `<!subteam^${id}>`);
  const cache = new Map<string, { members: ReadonlySet<string>; expiresAt: number }>();
  const inFlight = new Map<string, Promise<ReadonlySet<string>>>();

  async function members(groupId: string): Promise<ReadonlySet<string>> {
    const cached = cache.get(groupId);
    if (cached !== undefined && cached.expiresAt > options.now()) return cached.members;
    const pending = inFlight.get(groupId);
    if (pending !== undefined) return pending;
    const lookup = (async () => {
      try {
        const list = await options.lookupUserGroup(groupId);
        const set = new Set(list);
        cache.set(groupId, { members: set, expiresAt: options.now() + options.cacheTtlMs });
        return set;
      } finally {
        inFlight.delete(groupId);
      }
    })();
    inFlight.set(groupId, lookup);
    return lookup;
  }

  async function membership(userId: string, access: AccessList): Promise<Membership> {
    if (access.users.includes(userId)) return { kind: "member" };
    let failed: string | undefined;
    for (const groupId of access.userGroups) {
      try {
        if ((await members(groupId)).has(userId)) return { kind: "member" };
      } catch {
        failed ??= groupId;
      }
    }
    return failed === undefined ? { kind: "not-member" } : { kind: "lookup-failed", groupId: failed };
  }

  function describeAccess(access: AccessList): string {
    const parts: string[] = [];
    if (access.users.length > 0) {
      parts.push(
        `${access.users.length === 1 ? "user" : "users"} ${access.users.map(describeUser).join(", ")}`,
      );
    }
    if (access.userGroups.length > 0) {
      const groups = access.userGroups.map(describeGroup);
      parts.push(`${groups.length === 1 ? "group" : "groups"} ${groups.join(", ")}`);
    }
    return parts.join(" or ");
  }

  async function check(
    userId: string,
    access: AccessList,
    role: "requesters" | "approvers",
    context: CheckContext,
  ): Promise<AuthorizationResult> {
    const target = context.cluster === undefined ? "this cluster" : context.cluster;
    const verb = role === "requesters" ? "start or control rollouts of" : "approve rollouts of";
    if (access.users.length === 0 && access.userGroups.length === 0) {
      return {
        kind: "denied",
        reason: `nobody may ${verb} ${target}: its ${role} list is empty (an empty list means nobody; ask an admin to add users or user groups to the configuration)`,
      };
    }
    const result = await membership(userId, access);
    switch (result.kind) {
      case "member":
        return { kind: "allowed" };
      case "not-member":
        return {
          kind: "denied",
          reason: `you are not in the ${role} list for ${target} (${describeAccess(access)})`,
        };
      case "lookup-failed":
        return {
          kind: "denied",
          reason: `could not check whether you are in ${describeGroup(result.groupId)} (Slack did not answer), so the ${role} check for ${target} failed closed; please try again in a moment`,
        };
    }
  }

  return {
    canRequest: (userId, access, context = {}) => check(userId, access, "requesters", context),
    async canApprove(userId, access, context) {
      if (context.fourEyes && userId === context.requestedBy) {
        return { kind: "denied", reason: "four-eyes rule: the requester cannot approve their own rollout" };
      }
      return check(userId, access, "approvers", context);
    },
    clearCache(groupId) {
      if (groupId === undefined) cache.clear();
      else cache.delete(groupId);
    },
  };
}
