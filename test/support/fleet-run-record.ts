import type { FleetRunRecord } from "../../src/jobs/store/fleet-record.js";

/**
 * A running fleet run of the fleet `global` as the store keeps it, started in Slack (thread set) by `UREQ00001` and
 * owned by `replica-0`; `over` gives its stages and anything else.
 */
export function aFleetRun(over: Partial<FleetRunRecord> & Pick<FleetRunRecord, "stages">): FleetRunRecord {
  return {
    v: 1,
    id: "fl-0a1b2c3d",
    fleet: "global",
    target: "v3.7",
    requestedBy: "UREQ00001",
    owner: "replica-0",
    startedAt: 1,
    updatedAt: 2,
    resumedFrom: null,
    status: "running",
    reason: null,
    thread: { channel: "CROLL0001", ts: "1700000000.000100" },
    ...over,
  };
}
