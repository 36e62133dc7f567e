import { z } from "zod";
import { AppError, ErrorCode } from "../../core/errors.js";
import { auditEntrySchema, type StoredAuditEntry } from "../store/audit-and-history.js";
import { JOB_STATUSES, type JobStatus, parseStored } from "../store/job-record.js";
import type { LockHolder } from "../store/job-store.js";

/** Narrowing helpers for Lua replies (arrays of integers, strings and nulls). */
export function replyArray(reply: unknown, script: string): unknown[] {
  if (!Array.isArray(reply)) throw badReply(script, reply);
  return reply;
}

export function replyNumber(value: unknown, script: string): number {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) throw badReply(script, value);
  return n;
}

export function replyString(value: unknown, script: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  throw badReply(script, value);
}

/** Reads `{jobId, owner, since, expiresAt}` from `reply[offset..offset+3]`. */
export function replyHolder(reply: unknown[], offset: number, script: string): LockHolder {
  return {
    jobId: replyString(reply[offset], script),
    owner: replyString(reply[offset + 1], script),
    since: replyNumber(reply[offset + 2], script),
    expiresAt: replyNumber(reply[offset + 3], script),
  };
}

function badReply(script: string, value: unknown): AppError {
  return new AppError(ErrorCode.StoreCorrupt, `unexpected reply from ${script}: ${JSON.stringify(value)}`, {
    details: { script },
  });
}

/** A job status returned by a script. */
export function parseStatus(value: unknown, script: string): JobStatus {
  const parsed = z.enum(JOB_STATUSES).safeParse(value);
  if (!parsed.success) throw badReply(script, value);
  return parsed.data;
}

/** One stream entry (`XRANGE` row) of an audit trail, validated. */
export function parseAuditRow(key: string, id: string, flat: readonly string[]): StoredAuditEntry {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] ?? ""] = flat[i + 1] ?? "";
  const candidate = { ...fields, at: Number(fields.at) };
  return { id, ...parseStored(`${key} ${id}`, JSON.stringify(candidate), auditEntrySchema) };
}
