import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { createMemoryJobStore } from "../../src/jobs/memory/memory-job-store.js";
import { openFleetProgress } from "../../src/jobs/runner/fleet-progress.js";
import type { FleetRunRecord } from "../../src/jobs/store/fleet-record.js";
import { type ClusterEnd, driveFleet, type FleetEvent } from "../../src/usecases/drive-fleet.js";
import { aFleetRun } from "../support/fleet-run-record.js";
import { logger } from "./use-case-fixtures.js";

const worker = {
  workers: [{ name: "w1", url: "http://127.0.0.1:1" }],
  executor: { kind: "sim", controlUrl: "http://127.0.0.1:1" },
};
const config = configSchema.parse({
  clusters: { staging: worker, "prod-eu": worker, "prod-us": worker },
  fleets: { global: { stages: [["staging"], ["prod-eu", "prod-us"]], soakBetweenMs: 0, approvals: "none" } },
});
const fleet = (() => {
  const f = config.fleets.global;
  if (f === undefined) throw new Error("no fleet");
  return f;
})();

const open = (store: ReturnType<typeof createMemoryJobStore>, takeOver?: FleetRunRecord) =>
  openFleetProgress({
    store,
    fleet: "global",
    stages: fleet.stages,
    target: "v3.7",
    requestedBy: "U1",
    owner: "replica-1",
    lockTtlMs: 60_000,
    logger,
    signal: new AbortController().signal,
    warn: () => undefined,
    ...(takeOver === undefined ? {} : { takeOver }),
  });

/** Drives the fleet with clusters that end as `ends` says (default succeeded); which it rolled, and what it said. */
async function drive(
  store: ReturnType<typeof createMemoryJobStore>,
  ends: Record<string, () => Promise<ClusterEnd>> = {},
  takeOver?: FleetRunRecord,
) {
  const opened = await open(store, takeOver);
  if (opened.kind !== "ok") throw new Error(opened.kind);
  const rolled: string[] = [];
  const events: FleetEvent[] = [];
  const result = await driveFleet({
    config,
    fleet,
    name: "global",
    target: "v3.7",
    progress: opened.progress,
    stagesApproved: true,
    say: (e) => events.push(e),
    askStage: async () => true,
    rollCluster: async (_, c) => {
      rolled.push(c);
      return (ends[c] ?? (async () => ({ kind: "succeeded" })))();
    },
    soak: async () => [],
    waitForWindow: async () => true,
  });
  await opened.progress.close();
  return { result, rolled, events, record: await store.loadFleetRun("global") };
}

describe("driveFleet", () => {
  it("one cluster's error fails that cluster; its stage-mate still ends, and no later stage starts", async () => {
    const store = createMemoryJobStore();
    const { result, rolled, record } = await drive(store, {
      "prod-eu": async () => {
        throw new Error("the store failed");
      },
    });
    expect(result).toBe("failed");
    expect(rolled.sort()).toEqual(["prod-eu", "prod-us", "staging"]);
    expect(record?.stages[1]?.clusters).toEqual([
      { name: "prod-eu", status: "failed" },
      { name: "prod-us", status: "succeeded" },
    ]);
    expect(record?.reason).toBe(
      "stage 2/2 (prod-eu, prod-us): prod-eu (the store failed) did not succeed; no stage left",
    );
  });

  it("taken over: a cluster that ended under the earlier owner is not rolled again, whatever it ended with", async () => {
    const store = createMemoryJobStore();
    const previous = aFleetRun({
      stages: [
        { clusters: [{ name: "staging", status: "succeeded", job: "cr-1" }], status: "succeeded" },
        {
          clusters: [
            { name: "prod-eu", status: "failed", job: "cr-2" },
            { name: "prod-us", status: "running", job: "cr-3" },
          ],
          status: "running",
        },
      ],
    });
    await store.saveFleetRun(previous);
    const { result, rolled, events, record } = await drive(store, {}, previous);
    expect(rolled).toEqual(["prod-us"]);
    expect(result).toBe("failed");
    expect(events[0]).toEqual({ event: "taken-over", run: "fl-0a1b2c3d", stage: 2 });
    expect(record).toMatchObject({ id: "fl-0a1b2c3d", owner: "replica-1", status: "failed" });
  });

  it("takes over nothing when the run changed between the look and the lock (it ended, or moved on)", async () => {
    const store = createMemoryJobStore();
    const seen = aFleetRun({
      stages: [
        { clusters: [{ name: "staging", status: "succeeded" }], status: "soaking" },
        {
          clusters: [
            { name: "prod-eu", status: "pending" },
            { name: "prod-us", status: "pending" },
          ],
          status: "pending",
        },
      ],
    });
    await store.saveFleetRun({ ...seen, status: "failed", reason: "after the soak, …", updatedAt: 3 });
    expect((await open(store, seen)).kind).toBe("gone");
    // Not left holding the fleet's lock.
    expect(await store.readLock("fleet:global")).toBeNull();
  });
});
