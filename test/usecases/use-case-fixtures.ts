import { pino } from "pino";
import { rolloutSettingsFor } from "../../src/composition/compose-cluster.js";
import { configSchema } from "../../src/config/schema.js";
import type { RolloutPace } from "../../src/core/plan/plan-types.js";
import { createMemoryJobStore } from "../../src/jobs/memory/memory-job-store.js";
import type { JobRecord } from "../../src/jobs/store/job-record.js";
import type { Authorizer } from "../../src/usecases/access.js";

/**
 * What the use-cases' tests share: one cluster, `prod`, with a Monday change window and one requester; an authorizer
 * that allows exactly the listed users; a fresh in-process store per `deps`.
 */

export const logger = pino({ level: "silent" });
export const SAT_0300_UTC = Date.UTC(2024, 4, 4, 3, 0);
export const MON_1000_UTC = Date.UTC(2024, 4, 6, 10, 0);

export const config = configSchema.parse({
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
export const authorizer: Authorizer = {
  canRequest: async (userId, access) =>
    access.users.includes(userId) ? { kind: "allowed" } : { kind: "denied", reason: `not ${userId}` },
  canApprove: async (userId, access) =>
    access.users.includes(userId) ? { kind: "allowed" } : { kind: "denied", reason: `not ${userId}` },
  clearCache: () => undefined,
};

export function deps(now: number) {
  return {
    config,
    store: createMemoryJobStore(),
    authorizer,
    now: () => now,
    logger,
    settingsFor: (cluster: (typeof config.clusters)[string], pace?: RolloutPace) =>
      rolloutSettingsFor(cluster, pace === undefined ? {} : { pace }),
  };
}

export const slack = (userId: string, channelId = "CROLL0001") => ({
  kind: "slack" as const,
  userId,
  channelId,
});
export const terminal = { kind: "terminal" as const, user: "alice@host" };

export function job(id: string, overrides: Partial<JobRecord> = {}): JobRecord {
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
