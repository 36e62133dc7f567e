import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import { z } from "zod";
import { AppError, ErrorCode } from "../../core/errors.js";
import type { Decision } from "../../core/rollout/approval-types.js";

/** Lifecycle of a rollout job. The last three are final. */
export const JOB_STATUSES = [
  "pending",
  "running",
  "paused",
  "awaiting-approval",
  "succeeded",
  "aborted",
  "failed",
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

const FINISHED: ReadonlySet<JobStatus> = new Set(["succeeded", "aborted", "failed"]);

/** True for `succeeded`, `aborted` and `failed`: the job will never run again. */
export function isFinished(status: JobStatus): boolean {
  return FINISHED.has(status);
}

const threadSchema = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
/** The approval a job waits for, as stored on its record (the checkpoint holds the whole `PendingApproval`). */
const storedApprovalSchema = z.object({
  id: z.string().min(1),
  kind: z.string().min(1),
});
const controlSchema = z.object({
  pause: z.boolean(),
  abort: z.boolean(),
  by: z.string(),
  at: z.number(),
  /** Grows by one per request, atomically in the store: the order of requests, whatever replicas' clocks say. */
  seq: z.number().int().nonnegative(),
});

/** Envelope of a job as stored; `v` is the schema version. `state` is checked by the runner, not here. */
const jobRecordSchema = z.object({
  v: z.literal(1),
  id: z.string().min(1),
  cluster: z.string().min(1),
  status: z.enum(JOB_STATUSES),
  requestedBy: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  fence: z.number().int().nonnegative(),
  owner: z.string().nullable(),
  thread: threadSchema.nullable(),
  pendingApproval: storedApprovalSchema.nullable(),
  control: controlSchema.nullable(),
  /**
   * Slack messages of the job's thread, by notifier key → ts (step replies, prompts), recorded by the replica that
   * posted them, so a replica that takes the job over edits the same messages. Store-owned, like `control`.
   */
  messages: z.record(z.string(), z.string()).optional(),
  state: z.unknown().refine((value) => value !== undefined, "state is required (use null for none)"),
});

export type JobRecord = z.infer<typeof jobRecordSchema>;
export type SlackThread = z.infer<typeof threadSchema>;
/** Durable pause/abort request from chat. `pause` toggles (pause/resume); `abort` is sticky. */
export type ControlState = z.infer<typeof controlSchema>;

const DECISIONS = [
  "approve",
  "abort",
  "keep-waiting",
  "continue",
  "restart-tasks",
  "restart-again",
  "continue-without",
  "rollback",
] as const satisfies readonly Decision[];
export const decisionRecordSchema = z.object({
  decision: z.enum(DECISIONS),
  by: z.string(),
  at: z.number(),
});
/** An answer to an approval prompt, as recorded by the first person who clicked. */
export type DecisionRecord = z.infer<typeof decisionRecordSchema>;

/** What a record's body (the `record` field) holds: everything except the fields the store owns. */
type StoredBody = Omit<JobRecord, "fence" | "owner" | "control" | "messages">;

/**
 * The fields a job is stored as. `fence`, `owner` and `control` live beside the body because the
 * store (lock takeover, chat control requests) changes them without rewriting the runner's body;
 * `status`, `cluster` and `approval` are copies of body fields that the Lua scripts check.
 */
export interface StoredJobFields {
  record: string;
  fence: string;
  owner: string;
  status: JobStatus;
  cluster: string;
  approval: string;
}

/**
 * A body past this size is stored compressed (Brotli, quality 5): a rollout's checkpoint carries the settle gate's
 * baseline and newest poll and the data-flow track, with every task's state and counters; at 10,000 tasks that is
 * megabytes of JSON whose names and configs repeat far apart, which deflate's 32 KB window misses and Brotli's 4 MB
 * one finds (about 40:1 here against deflate's 15:1). Small bodies stay plain JSON, readable with redis-cli.
 */
export const COMPRESS_ABOVE_BYTES = 16 * 1024;
const COMPRESSED = "br:";

function encodeBody(json: string): string {
  if (json.length <= COMPRESS_ABOVE_BYTES) return json;
  const packed = brotliCompressSync(json, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
  return COMPRESSED + packed.toString("base64");
}

/** A stored body as JSON text: plain JSON as it is, a compressed one decompressed. */
function decodeBody(stored: string): string {
  if (!stored.startsWith(COMPRESSED)) return stored;
  return brotliDecompressSync(Buffer.from(stored.slice(COMPRESSED.length), "base64")).toString("utf8");
}

/** Splits a record into its stored fields (`control` and `messages` are never written from a record). */
export function toStoredFields(record: JobRecord): StoredJobFields {
  const { fence, owner, control: _control, messages: _messages, ...body } = record;
  const stored: StoredBody = body;
  return {
    record: encodeBody(JSON.stringify(stored)),
    fence: String(fence),
    owner: owner ?? "",
    status: record.status,
    cluster: record.cluster,
    approval: record.pendingApproval?.id ?? "",
  };
}

/** Raw control fields as stored (`ctl:pause`, `ctl:abort`, `ctl:by`, `ctl:at`, `ctl:seq`); absent when never set. */
export interface StoredControl {
  pause?: string | undefined;
  abort?: string | undefined;
  by?: string | undefined;
  at?: string | undefined;
  seq?: string | undefined;
}

/**
 * Raw Slack fields stored beside the body (`slack:thread`: the thread as JSON, recorded once its parent is posted,
 * which may be after the job started; `msg:<key>`: a message's ts). Absent when never set.
 */
export interface StoredSlack {
  thread?: string | undefined;
  messages?: Record<string, string>;
}

/** Prefix of the stored `msg:<key>` fields. */
const MESSAGE_FIELD_PREFIX = "msg:";

/** The Slack fields among all of a job's stored fields (Redis `HGETALL`). */
export function storedSlackOf(fields: Record<string, string>): StoredSlack {
  const messages: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields))
    if (name.startsWith(MESSAGE_FIELD_PREFIX)) messages[name.slice(MESSAGE_FIELD_PREFIX.length)] = value;
  return { thread: fields["slack:thread"], messages };
}

/**
 * Reassembles and validates a job read back from storage.
 * @throws AppError `store/corrupt` naming the key and the path of every bad value.
 */
export function fromStoredFields(
  key: string,
  fields: { record?: string | undefined; fence?: string | undefined; owner?: string | undefined },
  control: StoredControl,
  slack: StoredSlack = {},
): JobRecord {
  let body: unknown;
  try {
    body = JSON.parse(decodeBody(fields.record ?? ""));
  } catch (cause) {
    throw corrupt(key, "record: not JSON (or not a readable compressed body)", cause);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw corrupt(key, "record: not an object");
  }
  let storedThread: unknown = null;
  if (slack.thread !== undefined && slack.thread !== "") {
    try {
      storedThread = JSON.parse(slack.thread);
    } catch (cause) {
      throw corrupt(key, "slack:thread: not JSON", cause);
    }
  }
  const bodyThread = "thread" in body ? body.thread : undefined;
  const messages = slack.messages ?? {};
  const candidate = {
    ...body,
    thread: bodyThread === null ? storedThread : bodyThread,
    ...(Object.keys(messages).length === 0 ? {} : { messages }),
    fence: fields.fence === undefined ? undefined : Number(fields.fence),
    owner: fields.owner === undefined || fields.owner === "" ? null : fields.owner,
    control:
      control.by === undefined
        ? null
        : {
            pause: control.pause === "1",
            abort: control.abort === "1",
            by: control.by,
            at: Number(control.at),
            seq: Number(control.seq),
          },
  };
  const parsed = jobRecordSchema.safeParse(candidate);
  if (!parsed.success) throw corrupt(key, z.prettifyError(parsed.error), parsed.error);
  return parsed.data;
}

/** Parses a stored JSON value with `schema`, or throws `store/corrupt` naming the key. */
export function parseStored<T>(key: string, text: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw corrupt(key, "not JSON", cause);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw corrupt(key, z.prettifyError(parsed.error), parsed.error);
  return parsed.data;
}

function corrupt(key: string, problem: string, cause?: unknown): AppError {
  return new AppError(ErrorCode.StoreCorrupt, `corrupt data at ${key}: ${problem}`, {
    cause,
    details: { key, problem },
  });
}

/**
 * Checks a record before it is written, so a runner bug fails at the write, not at the next read.
 * @throws AppError `internal` with the path of every bad value.
 */
export function validateForWrite(record: JobRecord): JobRecord {
  const parsed = jobRecordSchema.safeParse(record);
  if (!parsed.success) {
    throw new AppError(
      ErrorCode.Internal,
      `invalid job record ${record.id}: ${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}
