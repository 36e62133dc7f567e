import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { rolloutSettingsFor } from "../../src/composition/compose-cluster.js";
import { configSchema } from "../../src/config/schema.js";
import { createMemoryJobStore } from "../../src/jobs/memory/memory-job-store.js";
import type { JobRecord } from "../../src/jobs/store/job-record.js";
import type { Authorizer } from "../../src/usecases/access.js";
import { controlRollout } from "../../src/usecases/control-rollout.js";
import { prepareRollout } from "../../src/usecases/prepare-rollout.js";

/** The use-cases return refusals as facts, in the order the README gives; a terminal user meets only some checks. */

const logger = pino({ level: "silent" });
const SAT_0300_UTC = Date.UTC(2024, 4, 4, 3, 0);
const MON_1000_UTC = Date.UTC(2024, 4, 6, 10, 0);

const config = configSchema.parse({
  slack: {
    channels: ["CROLL0001"],
    requesters: { users: ["UREQ00001"] },
    changeWindows: [{ days: ["mon"], start: "09:00", end: "16:00", timezone: "UTC" }],
  },
  clusters: {
    prod: {
      workers: [{ name: "w1", url: "http://127.0.0.1:1" }],
      executor: { kind: "sim", controlUrl: "http://127.0.0.1:1" },
    },
  },
});

/** Allows exactly the listed users; no group lookups. */
const authorizer: Authorizer = {
  canRequest: async (userId, access) =>
    access.users.includes(userId) ? { kind: "allowed" } : { kind: "denied", reason: `not ${userId}` },
  canApprove: async (userId, access) =>
    access.users.includes(userId) ? { kind: "allowed" } : { kind: "denied", reason: `not ${userId}` },
  clearCache: () => undefined,
};

function deps(now: number) {
  return {
    config,
    store: createMemoryJobStore(),
    authorizer,
    now: () => now,
    logger,
    settingsFor: (cluster: (typeof config.clusters)[string], pace?: "safe" | "window") =>
      rolloutSettingsFor(cluster, pace === undefined ? {} : { pace }),
  };
}

const slack = (userId: string, channelId = "CROLL0001") => ({ kind: "slack" as const, userId, channelId });
const terminal = { kind: "terminal" as const, user: "alice@host" };

function job(id: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    v: 1,
    id,
    cluster: "prod",
    status: "running",
    requestedBy: "UREQ00001",
    createdAt: 1,
    updatedAt: 1,
    fence: 0,
    owner: null,
    thread: { channel: "CROLL0001", ts: "1700000000.000100" },
    pendingApproval: null,
    control: null,
    state: null,
    ...overrides,
  };
}

describe("prepareRollout", () => {
  it.each([
    ["another channel", slack("UREQ00001", "COTHER001"), "prod", "v3.7", MON_1000_UTC, "channel-not-allowed"],
    ["an unknown cluster", slack("UREQ00001"), "prd", "v3.7", MON_1000_UTC, "unknown-cluster"],
    ["a stranger", slack("USTRANGE1"), "prod", "v3.7", MON_1000_UTC, "not-authorized"],
    ["a version the cluster does not accept", slack("UREQ00001"), "prod", "3.x", MON_1000_UTC, "bad-version"],
    ["outside the change window", slack("UREQ00001"), "prod", "v3.7", SAT_0300_UTC, "outside-change-window"],
    [
      "a terminal user outside the change window",
      terminal,
      "prod",
      "v3.7",
      SAT_0300_UTC,
      "outside-change-window",
    ],
  ] as const)("refuses %s", async (_what, requester, cluster, argument, now, kind) => {
    const result = await prepareRollout(deps(now), { cluster, argument, requester });
    expect(result).toMatchObject({ kind: "refused", reason: { kind } });
  });

  it("says when the window opens, as facts", async () => {
    const result = await prepareRollout(deps(SAT_0300_UTC), {
      cluster: "prod",
      argument: "restart",
      requester: slack("UREQ00001"),
    });
    expect(result).toEqual({
      kind: "refused",
      reason: {
        kind: "outside-change-window",
        cluster: "prod",
        next: "Mon 09:00 UTC",
        nextMs: Date.UTC(2024, 4, 6, 9, 0),
      },
    });
  });

  it("a terminal user meets no channel or requester check; it is recorded as itself", async () => {
    const result = await prepareRollout(deps(MON_1000_UTC), {
      cluster: "prod",
      argument: "v3.7",
      requester: terminal,
    });
    expect(result).toMatchObject({
      kind: "ok",
      rollout: { cluster: "prod", requestedBy: "alice@host", target: { kind: "upgrade", argument: "v3.7" } },
    });
  });

  it("a locked cluster: who holds it, its requester and thread", async () => {
    const d = deps(MON_1000_UTC);
    await d.store.createJob(job("j1"));
    await d.store.acquireLock("prod", { jobId: "j1", owner: "bot-a", ttlMs: 30_000 });
    const result = await prepareRollout(d, {
      cluster: "prod",
      argument: "v3.7",
      requester: slack("UREQ00001"),
    });
    expect(result).toMatchObject({
      kind: "refused",
      reason: {
        kind: "locked",
        cluster: "prod",
        holder: { jobId: "j1", owner: "bot-a", requestedBy: "UREQ00001", thread: { channel: "CROLL0001" } },
      },
    });
  });
});

describe("controlRollout", () => {
  it("resume is refused outside the change window; pause is not", async () => {
    const d = deps(SAT_0300_UTC);
    await d.store.createJob(job("j1"));
    const request = { cluster: "prod", requester: slack("UREQ00001") };
    expect(await controlRollout(d, { ...request, action: "resume" })).toMatchObject({
      kind: "refused",
      reason: { kind: "outside-change-window", next: "Mon 09:00 UTC" },
    });
    expect(await controlRollout(d, { ...request, action: "pause" })).toMatchObject({
      kind: "requested",
      action: "pause",
      jobId: "j1",
    });
  });

  it("an abort from a terminal answers the waiting prompt, as the operator", async () => {
    const d = deps(MON_1000_UTC);
    await d.store.createJob(job("j1", { pendingApproval: { id: "a1", kind: "eager-window" } }));
    const result = await controlRollout(d, { action: "abort", cluster: "prod", requester: terminal });
    expect(result).toMatchObject({ kind: "requested", answeredPrompt: "eager-window", at: MON_1000_UTC });
    expect((await d.store.loadJob("j1")).control).toMatchObject({ abort: true, by: "alice@host" });
  });

  it("nothing running, a stranger", async () => {
    const d = deps(MON_1000_UTC);
    expect(await controlRollout(d, { action: "pause", cluster: "prod", requester: terminal })).toEqual({
      kind: "refused",
      reason: { kind: "no-active-rollout", cluster: "prod" },
    });
    expect(
      await controlRollout(d, { action: "abort", cluster: "prod", requester: slack("USTRANGE1") }),
    ).toMatchObject({ kind: "refused", reason: { kind: "not-authorized", reason: "not USTRANGE1" } });
  });
});
