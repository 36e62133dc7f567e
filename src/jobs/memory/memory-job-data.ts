import type { StoredAuditEntry } from "../store/audit-and-history.js";
import type { StoredControl, StoredJobFields, StoredSlack } from "../store/job-record.js";

export interface MemoryLock {
  token: string;
  jobId: string;
  owner: string;
  since: number;
  expiresAt: number;
}

export interface MemoryJob {
  fields: StoredJobFields;
  control: StoredControl;
  /** Slack thread and message ts values (beside the body, like Redis's `slack:thread` and `msg:*`). */
  slack?: StoredSlack;
  /** approval id → decision JSON */
  decisions: Map<string, string>;
  createdAt: number;
}

/**
 * The in-process backend, as plain data (stored as text, like Redis, so nothing is shared by reference).
 * Several stores made over the same data behave like replicas sharing one Redis. Tests may edit it to
 * simulate corruption or a vanished lock.
 */
export interface MemoryJobData {
  locks: Map<string, MemoryLock>;
  fences: Map<string, number>;
  jobs: Map<string, MemoryJob>;
  audit: Map<string, StoredAuditEntry[]>;
  history: Map<string, string[]>;
  /** jobId → who claimed the posting of its final report, until when (`claimReport`) */
  reportClaims: Map<string, { owner: string; expiresAt: number }>;
  /** [cluster, jobId] as JSON → until when a record-lost mark lives (`markRecordLost`) */
  lostMarks: Map<string, number>;
  /** fleet → its latest run (JSON), and [fleet, runId] as JSON → its abort request (JSON) */
  fleetRuns: Map<string, string>;
  fleetAborts: Map<string, string>;
  fleetStageDecisions: Map<string, string>;
  /** listeners told a job's id when a checkpoint records it finished (`onJobFinished`) */
  finishedListeners: Set<(jobId: string) => void>;
  /** jobId → wake-up listeners of decision waiters */
  waiters: Map<string, Set<(approvalId: string) => void>>;
  auditSeq: number;
}

export function createMemoryJobData(): MemoryJobData {
  return {
    locks: new Map(),
    fences: new Map(),
    jobs: new Map(),
    audit: new Map(),
    history: new Map(),
    reportClaims: new Map(),
    lostMarks: new Map(),
    fleetRuns: new Map(),
    fleetAborts: new Map(),
    fleetStageDecisions: new Map(),
    finishedListeners: new Set(),
    waiters: new Map(),
    auditSeq: 0,
  };
}
