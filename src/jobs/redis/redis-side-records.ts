import { fleetAbortSchema, fleetRunRecordSchema, fleetStageDecisionSchema } from "../store/fleet-record.js";
import { parseStored } from "../store/job-record.js";
import type { SideRecords } from "../store/store-roles.js";
import type { RedisStoreContext } from "./redis-store-context.js";

/** How long a fleet run's abort request and stage answers are kept: far longer than any fleet run. */
const FLEET_ABORT_TTL_MS = 30 * 24 * 60 * 60_000;

/** The Redis job store's records beside the jobs: record-lost marks and fleet runs, each a plain key. */
export function createRedisSideRecords(ctx: RedisStoreContext): SideRecords {
  const { redis, keys, call } = ctx;
  return {
    async markRecordLost(cluster, jobId, ttlMs) {
      const key = keys.recordLost(cluster, jobId);
      await call("markRecordLost", key, () => redis.set(key, "1", "PX", Math.max(1, Math.ceil(ttlMs))));
    },

    async recordLostMarked(cluster, jobId) {
      const key = keys.recordLost(cluster, jobId);
      return (await call("recordLostMarked", key, () => redis.exists(key))) === 1;
    },

    async saveFleetRun(record) {
      const key = keys.fleetRun(record.fleet);
      const body = JSON.stringify(fleetRunRecordSchema.parse(record));
      await call("saveFleetRun", key, () => redis.set(key, body));
    },

    async loadFleetRun(fleet) {
      const key = keys.fleetRun(fleet);
      const text = await call("loadFleetRun", key, () => redis.get(key));
      return text === null ? null : parseStored(key, text, fleetRunRecordSchema);
    },

    async requestFleetAbort(fleet, runId, request) {
      const key = keys.fleetAbort(fleet, runId);
      const body = JSON.stringify(fleetAbortSchema.parse(request));
      await call("requestFleetAbort", key, () => redis.set(key, body, "PX", FLEET_ABORT_TTL_MS, "NX"));
    },

    async fleetAbortRequest(fleet, runId) {
      const key = keys.fleetAbort(fleet, runId);
      const text = await call("fleetAbortRequest", key, () => redis.get(key));
      return text === null ? null : parseStored(key, text, fleetAbortSchema);
    },

    async decideFleetStage(fleet, runId, stage, decision) {
      const key = keys.fleetStage(fleet, runId, stage);
      const body = JSON.stringify(fleetStageDecisionSchema.parse(decision));
      await call("decideFleetStage", key, () => redis.set(key, body, "PX", FLEET_ABORT_TTL_MS, "NX"));
    },

    async fleetStageDecision(fleet, runId, stage) {
      const key = keys.fleetStage(fleet, runId, stage);
      const text = await call("fleetStageDecision", key, () => redis.get(key));
      return text === null ? null : parseStored(key, text, fleetStageDecisionSchema);
    },
  };
}
