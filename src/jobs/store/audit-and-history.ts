import { z } from "zod";

/** Audit actions the product writes; other strings are allowed so the runner can add its own. */
export type KnownAuditAction =
  | "requested"
  | "started"
  | "approved"
  | "aborted"
  | "paused"
  | "resumed"
  | "decision-recorded"
  | "restart-issued"
  | "step-settled"
  | "lock-taken-over"
  | "lock-force-released"
  | "record-restored"
  | "succeeded"
  | "failed";

export const auditEntrySchema = z.object({
  at: z.number(),
  actor: z.string(),
  action: z.string().min(1),
  detail: z.string(),
});

/** One line of a job's audit trail. `actor` is a Slack user id or `bot:<owner>`. */
export interface AuditEntry {
  at: number;
  actor: string;
  action: KnownAuditAction | (string & {});
  detail: string;
}

/** An audit entry as read back, with its position in the stream (monotonic, in append order). */
export interface StoredAuditEntry extends AuditEntry {
  id: string;
}

export const historyEntrySchema = z.object({
  jobId: z.string().min(1),
  cluster: z.string().min(1),
  target: z.string(),
  result: z.enum(["succeeded", "aborted", "failed"]),
  requestedBy: z.string(),
  startedAt: z.number(),
  finishedAt: z.number(),
  stepsDone: z.number().int().nonnegative(),
  stepsTotal: z.number().int().nonnegative(),
  tasksMoved: z.number().int().nonnegative(),
  taskDowntimeMs: z.number().nonnegative(),
  /** The longest data-flow gap the per-task metrics measured; null when data flow was not visible. */
  maxDataGapMs: z.number().nonnegative().nullable(),
  thread: z.object({ channel: z.string(), ts: z.string() }).nullable(),
});

/** Summary of one finished rollout, kept per cluster for `/connect-roll history`. */
export type HistoryEntry = z.infer<typeof historyEntrySchema>;
