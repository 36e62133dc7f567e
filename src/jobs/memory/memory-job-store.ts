import { randomUUID } from "node:crypto";
import { AppError, ErrorCode } from "../../core/errors.js";
import { auditEntrySchema, historyEntrySchema, type StoredAuditEntry } from "../store/audit-and-history.js";
import { waitForDecisionWith } from "../store/decision-waiter.js";
import {
  type DecisionRecord,
  decisionRecordSchema,
  fromStoredFields,
  isFinished,
  type JobRecord,
  parseStored,
  toStoredFields,
  validateForWrite,
} from "../store/job-record.js";
import {
  type AcquireResult,
  checkLeaseMatches,
  type JobStore,
  type ListJobsOptions,
  type LockHolder,
} from "../store/job-store.js";
import { runEveryStep } from "../store/run-every-step.js";
import {
  createMemoryJobData,
  type MemoryJob,
  type MemoryJobData,
  type MemoryLock,
} from "./memory-job-data.js";
import { createMemorySideRecords } from "./memory-side-records.js";

export interface MemoryJobStoreOptions {
  /** Clock for lock expiry and holder times. Default `Date.now`. */
  now?: () => number;
  /** Backend shared with other stores (replicas); default a fresh one. */
  data?: MemoryJobData;
  auditLimit?: number;
  historyLimit?: number;
}

/**
 * The JobStore in process memory: for tests and a single replica without Redis. Same semantics as the
 * Redis adapter (it passes the same contract suite); every operation is atomic because it is synchronous.
 */
export function createMemoryJobStore(options: MemoryJobStoreOptions = {}): JobStore {
  const now = options.now ?? Date.now;
  const data = options.data ?? createMemoryJobData();
  const auditLimit = options.auditLimit ?? 1000;
  const historyLimit = options.historyLimit ?? 50;
  const closing = new AbortController();
  let closed: Promise<void> | undefined;

  /** The live lock of a cluster; drops an expired one. */
  function liveLock(cluster: string): MemoryLock | undefined {
    const lock = data.locks.get(cluster);
    if (lock !== undefined && lock.expiresAt <= now()) {
      data.locks.delete(cluster);
      return undefined;
    }
    return lock;
  }

  const holderOf = (lock: MemoryLock): LockHolder => ({
    jobId: lock.jobId,
    owner: lock.owner,
    since: lock.since,
    expiresAt: lock.expiresAt,
  });

  function acquire(cluster: string, jobId: string, owner: string, ttlMs: number): AcquireResult {
    const current = liveLock(cluster);
    if (current !== undefined) return { kind: "held", holder: holderOf(current) };
    const at = now();
    const fence = (data.fences.get(cluster) ?? 0) + 1;
    data.fences.set(cluster, fence);
    const token = randomUUID();
    data.locks.set(cluster, { token, jobId, owner, since: at, expiresAt: at + ttlMs });
    return { kind: "acquired", lease: { cluster, jobId, owner, token, fence } };
  }

  function job(id: string): MemoryJob {
    const found = data.jobs.get(id);
    if (found === undefined)
      throw new AppError(ErrorCode.JobNotFound, `job ${id} not found`, { details: { jobId: id } });
    return found;
  }

  function loadJobSync(id: string): JobRecord {
    const stored = job(id);
    return fromStoredFields(`job:${id}`, stored.fields, stored.control, stored.slack);
  }

  function readDecisionSync(jobId: string, approvalId: string): DecisionRecord | null {
    const text = data.jobs.get(jobId)?.decisions.get(approvalId);
    return text === undefined
      ? null
      : parseStored(`job:${jobId} decision:${approvalId}`, text, decisionRecordSchema);
  }

  function listJobsSync(opts: ListJobsOptions = {}): JobRecord[] {
    const entries = [...data.jobs.entries()].sort((a, b) => a[1].createdAt - b[1].createdAt);
    const result: JobRecord[] = [];
    for (const [id, stored] of entries) {
      if (opts.unfinishedOnly === true && isFinished(stored.fields.status)) continue;
      if (opts.cluster !== undefined && stored.fields.cluster !== opts.cluster) continue;
      if (opts.createdSince !== undefined && stored.createdAt < opts.createdSince) continue;
      result.push(loadJobSync(id));
    }
    return result;
  }

  function appendAuditSync(jobId: string, entry: StoredAuditEntry): void {
    const list = data.audit.get(jobId) ?? [];
    list.push(entry);
    if (list.length > auditLimit) list.splice(0, list.length - auditLimit);
    data.audit.set(jobId, list);
  }

  const nextAuditId = (): string => `${now()}-${++data.auditSeq}`;

  const store: JobStore = {
    ...createMemorySideRecords(data, now),
    async acquireLock(cluster, { jobId, owner, ttlMs }) {
      return acquire(cluster, jobId, owner, ttlMs);
    },
    async renewLock(lease, ttlMs) {
      const lock = liveLock(lease.cluster);
      if (lock === undefined || lock.token !== lease.token) return false;
      lock.expiresAt = now() + ttlMs;
      return true;
    },
    async releaseLock(lease) {
      const lock = liveLock(lease.cluster);
      if (lock === undefined || lock.token !== lease.token) return false;
      data.locks.delete(lease.cluster);
      return true;
    },
    async readLock(cluster) {
      const lock = liveLock(cluster);
      return lock === undefined ? null : holderOf(lock);
    },
    async forceRelease(cluster, by) {
      const lock = liveLock(cluster);
      if (lock === undefined) return { kind: "not-held" };
      data.locks.delete(cluster);
      const detail = `lock on ${cluster} released by ${by} (was held by ${lock.owner})`;
      appendAuditSync(lock.jobId, {
        id: nextAuditId(),
        at: now(),
        actor: by,
        action: "lock-force-released",
        detail,
      });
      return { kind: "released", holder: holderOf(lock) };
    },

    async createJob(record) {
      const valid = validateForWrite(record);
      if (data.jobs.has(valid.id)) throw new AppError(ErrorCode.Internal, `job ${valid.id} already exists`);
      data.jobs.set(valid.id, {
        fields: toStoredFields(valid),
        control: {},
        decisions: new Map(),
        createdAt: valid.createdAt,
      });
    },
    async loadJob(id) {
      return loadJobSync(id);
    },
    async saveJob(lease, record) {
      checkLeaseMatches(lease, record);
      const valid = validateForWrite({ ...record, fence: lease.fence, owner: lease.owner });
      const stored = job(valid.id);
      const lock = liveLock(lease.cluster);
      if (lock === undefined || lock.token !== lease.token || Number(stored.fields.fence) > lease.fence) {
        throw new AppError(ErrorCode.LockLost, `saveJob: lock lost for job ${valid.id}`, {
          details: { jobId: valid.id, cluster: lease.cluster },
        });
      }
      stored.fields = { ...toStoredFields(valid), cluster: stored.fields.cluster };
      if (isFinished(valid.status)) for (const tell of data.finishedListeners) tell(valid.id);
    },
    async onJobFinished(listener) {
      data.finishedListeners.add(listener);
      return () => void data.finishedListeners.delete(listener);
    },
    async listJobs(opts) {
      return listJobsSync(opts);
    },

    async decide(jobId, approvalId, decision) {
      const stored = job(jobId);
      const existing = stored.decisions.get(approvalId);
      if (existing !== undefined) {
        return {
          kind: "already-decided",
          decision: parseStored(`job:${jobId}`, existing, decisionRecordSchema),
        };
      }
      if (stored.fields.approval !== approvalId) return { kind: "not-awaiting" };
      stored.decisions.set(approvalId, JSON.stringify(decisionRecordSchema.parse(decision)));
      for (const wake of data.waiters.get(jobId) ?? []) wake(approvalId);
      return { kind: "recorded" };
    },
    async readDecision(jobId, approvalId) {
      return readDecisionSync(jobId, approvalId);
    },
    waitForDecision(jobId, approvalId, { signal, pollMs }) {
      return waitForDecisionWith({
        read: async () => readDecisionSync(jobId, approvalId),
        listen: async (onWake) => {
          const listener = (id: string): void => {
            if (id === approvalId) onWake();
          };
          const set = data.waiters.get(jobId) ?? new Set();
          set.add(listener);
          data.waiters.set(jobId, set);
          return () => {
            set.delete(listener);
            if (set.size === 0) data.waiters.delete(jobId);
          };
        },
        signal: AbortSignal.any([signal, closing.signal]),
        pollMs: pollMs ?? 1000,
      });
    },

    async requestControl(jobId, { action, by, at }) {
      const stored = job(jobId);
      const status = stored.fields.status;
      if (isFinished(status)) return { kind: "finished", status };
      const pause = action === "pause" ? true : action === "resume" ? false : stored.control.pause === "1";
      const abort = action === "abort" || stored.control.abort === "1";
      const seq = Number(stored.control.seq ?? "0") + 1;
      stored.control = {
        pause: pause ? "1" : "0",
        abort: abort ? "1" : "0",
        by,
        at: String(at),
        seq: String(seq),
      };
      return { kind: "recorded", control: { pause, abort, by, at, seq } };
    },

    async recordSlackMessages(jobId, { thread, messages = {} }) {
      const stored = job(jobId);
      stored.slack = {
        thread: thread === undefined ? stored.slack?.thread : JSON.stringify(thread),
        messages: { ...stored.slack?.messages, ...messages },
      };
    },

    async claimReport(jobId, owner, ttlMs) {
      job(jobId);
      const at = now();
      const claim = data.reportClaims.get(jobId);
      if (claim !== undefined && claim.expiresAt > at) return false;
      data.reportClaims.set(jobId, { owner, expiresAt: at + ttlMs });
      return true;
    },

    async appendAudit(jobId, entry) {
      appendAuditSync(jobId, { id: nextAuditId(), ...auditEntrySchema.parse(entry) });
    },
    async readAudit(jobId) {
      return (data.audit.get(jobId) ?? []).map((entry) => ({ ...entry }));
    },

    async pushHistory(cluster, entry) {
      const list = data.history.get(cluster) ?? [];
      list.unshift(JSON.stringify(historyEntrySchema.parse(entry)));
      list.length = Math.min(list.length, historyLimit);
      data.history.set(cluster, list);
    },
    async history(cluster, limit) {
      const rows = (data.history.get(cluster) ?? []).slice(0, Math.max(0, limit));
      return rows.map((row, i) => parseStored(`history:${cluster}[${i}]`, row, historyEntrySchema));
    },

    async findOrphans() {
      return listJobsSync({ unfinishedOnly: true }).filter((j) => liveLock(j.cluster) === undefined);
    },
    async takeOver(target, owner, ttlMs) {
      const stored = job(target.id);
      const status = stored.fields.status;
      if (isFinished(status)) return { kind: "finished", status };
      const result = acquire(target.cluster, target.id, owner, ttlMs);
      if (result.kind === "held") return result;
      const previous = stored.fields.owner;
      stored.fields = { ...stored.fields, fence: String(result.lease.fence), owner };
      appendAuditSync(target.id, {
        id: nextAuditId(),
        at: now(),
        actor: `bot:${owner}`,
        action: "lock-taken-over",
        detail: `${owner} took over job ${target.id} on ${target.cluster} (previous owner: ${previous}, fence ${result.lease.fence})`,
      });
      return result;
    },

    async ping() {},
    close() {
      closed ??= runEveryStep([
        () => closing.abort(new AppError(ErrorCode.StoreUnavailable, "job store closed")),
      ]);
      return closed;
    },
  };
  return store;
}
