import { randomUUID } from "node:crypto";
import type { HistoryEntry } from "../../../src/jobs/store/audit-and-history.js";
import type { JobRecord } from "../../../src/jobs/store/job-record.js";

/** A valid job record; override what the test is about. */
export function aJob(overrides: Partial<JobRecord> = {}): JobRecord {
  const at = Date.now();
  return {
    v: 1,
    id: `job-${randomUUID()}`,
    cluster: "prod",
    status: "running",
    requestedBy: "U123",
    createdAt: at,
    updatedAt: at,
    fence: 0,
    owner: null,
    thread: { channel: "C1", ts: "1700000000.000100" },
    pendingApproval: null,
    control: null,
    state: { step: 0, workers: ["w1", "w2"] },
    ...overrides,
  };
}

export function aHistoryEntry(jobId: string, overrides: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    jobId,
    cluster: "prod",
    target: "3.7.0",
    result: "succeeded",
    requestedBy: "U123",
    startedAt: 1,
    finishedAt: 2,
    stepsDone: 3,
    stepsTotal: 3,
    tasksMoved: 0,
    taskDowntimeMs: 1200,
    maxDataGapMs: null,
    thread: null,
    ...overrides,
  };
}
