import { fleetAbortSchema, fleetRunRecordSchema, fleetStageDecisionSchema } from "../store/fleet-record.js";
import { parseStored } from "../store/job-record.js";
import type { SideRecords } from "../store/store-roles.js";
import type { MemoryJobData } from "./memory-job-data.js";

/** The in-process store's records beside the jobs: record-lost marks, fleet runs and their aborts and stage answers (as text, like Redis). */
export function createMemorySideRecords(data: MemoryJobData, now: () => number): SideRecords {
  return {
    async markRecordLost(cluster, jobId, ttlMs) {
      data.lostMarks.set(JSON.stringify([cluster, jobId]), now() + ttlMs);
    },
    async recordLostMarked(cluster, jobId) {
      return (data.lostMarks.get(JSON.stringify([cluster, jobId])) ?? 0) > now();
    },

    async saveFleetRun(record) {
      data.fleetRuns.set(record.fleet, JSON.stringify(fleetRunRecordSchema.parse(record)));
    },
    async loadFleetRun(fleet) {
      const text = data.fleetRuns.get(fleet);
      return text === undefined ? null : parseStored(`fleet-run:${fleet}`, text, fleetRunRecordSchema);
    },
    async requestFleetAbort(fleet, runId, request) {
      const key = JSON.stringify([fleet, runId]);
      if (!data.fleetAborts.has(key))
        data.fleetAborts.set(key, JSON.stringify(fleetAbortSchema.parse(request)));
    },
    async fleetAbortRequest(fleet, runId) {
      const text = data.fleetAborts.get(JSON.stringify([fleet, runId]));
      return text === undefined ? null : parseStored(`fleet-abort:${fleet}`, text, fleetAbortSchema);
    },
    async decideFleetStage(fleet, runId, stage, decision) {
      const key = JSON.stringify([fleet, runId, stage]);
      if (!data.fleetStageDecisions.has(key))
        data.fleetStageDecisions.set(key, JSON.stringify(fleetStageDecisionSchema.parse(decision)));
    },
    async fleetStageDecision(fleet, runId, stage) {
      const text = data.fleetStageDecisions.get(JSON.stringify([fleet, runId, stage]));
      return text === undefined ? null : parseStored(`fleet-stage:${fleet}`, text, fleetStageDecisionSchema);
    },
  };
}
