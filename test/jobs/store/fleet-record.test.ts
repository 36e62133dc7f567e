import { describe, expect, it } from "vitest";
import { type FleetRunRecord, resumeFrom } from "../../../src/jobs/store/fleet-record.js";

const STAGES = [["staging"], ["prod-eu", "prod-us"]];
const run = (statuses: FleetRunRecord["stages"][number]["status"][], over: Partial<FleetRunRecord> = {}) =>
  ({
    v: 1,
    id: "fl-1",
    fleet: "f",
    target: "3.7.3",
    requestedBy: "ops",
    owner: "cli",
    startedAt: 1,
    updatedAt: 2,
    resumedFrom: null,
    status: "running",
    reason: null,
    stages: STAGES.map((clusters, i) => ({
      clusters: clusters.map((name) => ({ name, status: "pending" as const })),
      status: statuses[i] ?? "pending",
    })),
    ...over,
  }) satisfies FleetRunRecord;

describe("which stage a fleet rerun starts at", () => {
  it("after the stages done, for the same version and stages, whether the run stopped, failed or was aborted", () => {
    expect(resumeFrom(run(["succeeded", "running"]), STAGES, "3.7.3")).toBe(1);
    expect(resumeFrom(run(["succeeded", "failed"], { status: "failed" }), STAGES, "3.7.3")).toBe(1);
    expect(resumeFrom(run(["succeeded", "aborted"], { status: "aborted" }), STAGES, "3.7.3")).toBe(1);
    // Every stage done, the end not recorded: nothing left.
    expect(resumeFrom(run(["succeeded", "succeeded"]), STAGES, "3.7.3")).toBe(2);
  });

  it("afresh: nothing on record, a run that succeeded, another version, changed stages, nothing done yet", () => {
    expect(resumeFrom(null, STAGES, "3.7.3")).toBeNull();
    expect(resumeFrom(run(["succeeded", "succeeded"], { status: "succeeded" }), STAGES, "3.7.3")).toBeNull();
    expect(resumeFrom(run(["succeeded", "running"]), STAGES, "3.8.0")).toBeNull();
    expect(resumeFrom(run(["succeeded", "running"]), [["staging"], ["prod-eu"]], "3.7.3")).toBeNull();
    expect(resumeFrom(run(["running", "pending"]), STAGES, "3.7.3")).toBeNull();
  });
});
