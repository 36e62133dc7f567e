import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { createMemoryJobStore } from "../../src/jobs/memory/memory-job-store.js";
import type { FleetRunRecord } from "../../src/jobs/store/fleet-record.js";
import { abortFleet, answerFleetStage, checkFleetStart } from "../../src/usecases/fleet-requests.js";
import { aFleetRun } from "../support/fleet-run-record.js";
import { authorizer, job, logger, MON_1000_UTC, slack } from "./use-case-fixtures.js";

const worker = {
  workers: [{ name: "w1", url: "http://127.0.0.1:1" }],
  executor: { kind: "sim", controlUrl: "http://127.0.0.1:1" },
};
/** Staging approved by UAPP00001 alone; prod by UAPP00002 alone; both requested by UREQ00001. */
const config = configSchema.parse({
  slack: {
    channels: ["CROLL0001"],
    requesters: { users: ["UREQ00001"] },
    approvers: { users: ["UAPP00001"] },
    fourEyes: true,
  },
  clusters: {
    staging: worker,
    prod: { ...worker, access: { approvers: { users: ["UAPP00002"], userGroups: [] } } },
  },
  fleets: { global: { stages: [["staging"], ["prod"]] } },
});

function deps() {
  return { config, store: createMemoryJobStore(), authorizer, now: () => MON_1000_UTC, logger };
}

const run = (over: Partial<FleetRunRecord> = {}): FleetRunRecord =>
  aFleetRun({
    stages: [
      { clusters: [{ name: "staging", status: "succeeded", job: "cr-00000001" }], status: "succeeded" },
      { clusters: [{ name: "prod", status: "pending" }], status: "awaiting-approval" },
    ],
    ...over,
  });

describe("fleet requests", () => {
  it("a stage is approved by who may approve its clusters (not the requester: four eyes); Abort needs the whole fleet", async () => {
    const d = deps();
    await d.store.saveFleetRun(run());
    const answer = (userId: string, decision: "approve" | "abort") =>
      answerFleetStage(d, {
        fleet: "global",
        runId: "fl-0a1b2c3d",
        stage: 1,
        decision,
        requester: slack(userId),
      });
    expect(await answer("UREQ00001", "approve")).toMatchObject({
      kind: "refused",
      reason: { kind: "not-authorized" },
    });
    expect(await answer("UAPP00001", "approve")).toMatchObject({
      kind: "refused",
      reason: { kind: "not-authorized" },
    });
    // May approve stage 2's cluster, not staging: Abort (the whole fleet) is refused to them.
    expect(await answer("UAPP00002", "abort")).toMatchObject({
      kind: "refused",
      reason: { kind: "not-authorized" },
    });
    expect(await d.store.fleetStageDecision("global", "fl-0a1b2c3d", 1)).toBeNull();
    expect(await answer("UAPP00002", "approve")).toEqual({ kind: "recorded", decision: "approve" });
    expect(await d.store.fleetStageDecision("global", "fl-0a1b2c3d", 1)).toMatchObject({
      decision: "approve",
      by: "UAPP00002",
    });
    // A stale prompt: its run replaced by a later one.
    await d.store.saveFleetRun(run({ id: "fl-99999999" }));
    expect(await answer("UAPP00002", "approve")).toMatchObject({
      kind: "refused",
      reason: { kind: "stage-not-waiting", status: "replaced by a later run" },
    });
  });

  it("a Slack run whose replica is gone: a new start is refused (a replica takes it over); an abort is recorded for it", async () => {
    const d = deps();
    await d.store.saveFleetRun(run());
    expect(
      await checkFleetStart(d, { fleet: "global", argument: "v3.7", requester: slack("UREQ00001") }),
    ).toEqual({
      kind: "refused",
      reason: { kind: "fleet-taking-over", fleet: "global", runId: "fl-0a1b2c3d" },
    });
    const aborted = await abortFleet(d, { fleet: "global", requester: slack("UREQ00001"), via: "slack" });
    expect(aborted).toMatchObject({ kind: "requested", runId: "fl-0a1b2c3d" });
    expect(await d.store.fleetAbortRequest("global", "fl-0a1b2c3d")).toMatchObject({ by: "UREQ00001" });
    // A terminal's run whose process is gone has nothing to abort.
    await d.store.saveFleetRun(run({ id: "fl-00000002", thread: null }));
    expect(
      await abortFleet(d, { fleet: "global", requester: slack("UREQ00001"), via: "slack" }),
    ).toMatchObject({
      kind: "refused",
      reason: { kind: "fleet-not-running", stopped: true },
    });
  });

  it("aborts the rollout the fleet started, not another one that holds its cluster", async () => {
    const d = deps();
    await d.store.saveFleetRun(
      run({
        stages: [
          { clusters: [{ name: "staging", status: "running", job: "cr-0000f1ee" }], status: "running" },
          { clusters: [{ name: "prod", status: "pending" }], status: "pending" },
        ],
      }),
    );
    await d.store.acquireLock("fleet:global", { jobId: "fl-0a1b2c3d", owner: "replica-0", ttlMs: 60_000 });
    // Someone else's rollout of staging (the fleet's job not created yet).
    await d.store.createJob(job("cr-00007777", { cluster: "staging" }));
    const aborted = await abortFleet(d, { fleet: "global", requester: slack("UREQ00001"), via: "slack" });
    expect(aborted).toMatchObject({ kind: "requested", clusters: [] });
    expect((await d.store.loadJob("cr-00007777")).control).toBeNull();
  });
});
