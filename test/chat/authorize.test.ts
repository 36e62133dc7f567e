import { describe, expect, it } from "vitest";
import { createAuthorizer } from "../../src/chat/authorize.js";

function setup(groups: Record<string, string[]>) {
  let now = 1_000;
  const lookups: string[] = [];
  let failing = false;
  const authorizer = createAuthorizer({
    cacheTtlMs: 60_000,
    now: () => now,
    lookupUserGroup: async (groupId) => {
      lookups.push(groupId);
      if (failing) throw new Error("slack is down");
      return groups[groupId] ?? [];
    },
  });
  return {
    authorizer,
    lookups,
    advance: (ms: number) => {
      now += ms;
    },
    setFailing: (value: boolean) => {
      failing = value;
    },
  };
}

const access = { users: ["U1", "U2"], userGroups: ["S1"] };

describe("createAuthorizer", () => {
  it("allows listed users without a group lookup", async () => {
    const { authorizer, lookups } = setup({});
    expect(await authorizer.canRequest("U1", access)).toEqual({ kind: "allowed" });
    expect(lookups).toEqual([]);
  });

  it("allows members of a listed group and denies others with a sentence", async () => {
    const { authorizer } = setup({ S1: ["U9"] });
    expect(await authorizer.canRequest("U9", access)).toEqual({ kind: "allowed" });
    expect(
      await authorizer.canApprove("U7", access, {
        requestedBy: "U1",
        fourEyes: true,
        cluster: "prod-cluster",
      }),
    ).toEqual({
      kind: "denied",
      reason:
        "you are not in the approvers list for prod-cluster (users <@U1>, <@U2> or group <!subteam^S1>)",
    });
  });

  it("uses custom descriptions of users and groups", async () => {
    const authorizer = createAuthorizer({
      cacheTtlMs: 1000,
      now: () => 0,
      lookupUserGroup: async () => [],
      describeUser: (id) => id,
      describeGroup: () => "@oncall",
    });
    expect(
      await authorizer.canApprove("U7", access, {
        requestedBy: "U1",
        fourEyes: false,
        cluster: "prod-cluster",
      }),
    ).toEqual({
      kind: "denied",
      reason: "you are not in the approvers list for prod-cluster (users U1, U2 or group @oncall)",
    });
  });

  it("treats an empty access list as nobody", async () => {
    const { authorizer } = setup({});
    const result = await authorizer.canRequest("U1", { users: [], userGroups: [] }, { cluster: "prod" });
    expect(result.kind).toBe("denied");
    if (result.kind === "denied")
      expect(result.reason).toMatch(/nobody may start or control rollouts of prod/);
  });

  it("caches group membership for the ttl", async () => {
    const { authorizer, lookups, advance } = setup({ S1: ["U9"] });
    await authorizer.canRequest("U9", access);
    await authorizer.canRequest("U8", access);
    expect(lookups).toEqual(["S1"]);
    advance(60_001);
    await authorizer.canRequest("U9", access);
    expect(lookups).toEqual(["S1", "S1"]);
    authorizer.clearCache();
    await authorizer.canRequest("U9", access);
    expect(lookups).toHaveLength(3);
  });

  it("shares one lookup between concurrent checks", async () => {
    const { authorizer, lookups } = setup({ S1: ["U9"] });
    await Promise.all([authorizer.canRequest("U9", access), authorizer.canRequest("U8", access)]);
    expect(lookups).toEqual(["S1"]);
  });

  it("fails closed when the lookup fails, and does not cache the failure", async () => {
    const { authorizer, lookups, setFailing } = setup({ S1: ["U9"] });
    setFailing(true);
    const denied = await authorizer.canRequest("U9", access, { cluster: "prod" });
    expect(denied.kind).toBe("denied");
    if (denied.kind === "denied") {
      expect(denied.reason).toMatch(/could not check whether you are in <!subteam\^S1>/);
      expect(denied.reason).not.toMatch(/slack is down/);
    }
    setFailing(false);
    expect(await authorizer.canRequest("U9", access)).toEqual({ kind: "allowed" });
    expect(lookups).toEqual(["S1", "S1"]);
  });

  it("allows through another group when one lookup fails", async () => {
    let calls = 0;
    const authorizer = createAuthorizer({
      cacheTtlMs: 1000,
      now: () => 0,
      lookupUserGroup: async (id) => {
        calls += 1;
        if (id === "S1") throw new Error("boom");
        return ["U9"];
      },
    });
    expect(await authorizer.canRequest("U9", { users: [], userGroups: ["S1", "S2"] })).toEqual({
      kind: "allowed",
    });
    expect(calls).toBe(2);
  });

  it("applies the four-eyes rule before the list", async () => {
    const { authorizer } = setup({});
    expect(await authorizer.canApprove("U1", access, { requestedBy: "U1", fourEyes: true })).toEqual({
      kind: "denied",
      reason: "four-eyes rule: the requester cannot approve their own rollout",
    });
    expect(await authorizer.canApprove("U1", access, { requestedBy: "U1", fourEyes: false })).toEqual({
      kind: "allowed",
    });
    expect(await authorizer.canApprove("U2", access, { requestedBy: "U1", fourEyes: true })).toEqual({
      kind: "allowed",
    });
  });
});
