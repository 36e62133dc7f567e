import { z } from "zod";
import { AppError, ErrorCode } from "../../core/errors.js";
import { READABLE_STATE_VERSIONS, type RolloutState } from "../../core/rollout/rollout-state.js";
import type { JobRecord, JobStatus } from "./job-record.js";

const windowKeySchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("eager"), fromStep: z.number().int().positive() }),
  z.object({ kind: z.literal("pace"), window: z.number().int().nonnegative() }),
]);

/** The window being crossed. */
const openWindowSchema = z.looseObject({ key: windowKeySchema, deadline: z.number().nullable() });

/** A reason or note: facts (`{ kind, … }`), worded in src/wording/. */
const facts = z.looseObject({ kind: z.string().min(1) });

/**
 * The checkpoint's outer shape, checked when a job is read back (another replica, another version of the bot).
 * Nested plan/baseline data are the runner's own output and are kept as they are.
 */
const stateSchema = z.looseObject({
  v: z.union(READABLE_STATE_VERSIONS.map((v) => z.literal(v))),
  jobId: z.string().min(1),
  cluster: z.string().min(1),
  target: z.looseObject({ kind: z.enum(["upgrade", "restart"]), version: z.string(), argument: z.string() }),
  requestedBy: z.string(),
  startedAt: z.number(),
  settings: z.looseObject({
    planPolicy: z.looseObject({}),
    gatePolicy: z.looseObject({}),
    pollIntervalMs: z.number().positive(),
  }),
  phase: z.looseObject({
    kind: z.enum([
      "planning",
      "awaiting-approval",
      "before-step",
      "restarting",
      "verifying-restart",
      "waiting-back",
      "settling",
      "paused",
      "finished",
    ]),
    /** `finished`: why. */
    reason: facts.optional(),
  }),
  steps: z.array(
    z.looseObject({
      step: z.number().int().positive(),
      worker: z.string(),
      status: z.string(),
      attempts: z.number().int(),
      note: facts.nullable().optional(),
    }),
  ),
  approvals: z.array(z.looseObject({ id: z.string(), decision: z.string(), by: z.string() })),
  track: z.looseObject({
    lastWorker: z.record(z.string(), z.string()),
    down: z.array(z.string()),
    eager: z.boolean(),
  }),
  seq: z.number().int(),
  openWindow: openWindowSchema.nullable().optional(),
  flow: z.looseObject({
    since: z.number().nullable(),
    visible: z.boolean(),
    tasks: z.record(z.string(), z.looseObject({ worker: z.string().nullable(), records: z.number() })),
  }),
  timeline: z.array(
    z.looseObject({ at: z.number(), down: z.number(), notFlowing: z.number().nullable(), total: z.number() }),
  ),
});

/** Reads a rollout checkpoint from a job record. @throws AppError `store/corrupt` with every bad path. */
export function rolloutStateOf(record: JobRecord): RolloutState {
  const parsed = stateSchema.safeParse(record.state);
  if (!parsed.success)
    throw new AppError(
      ErrorCode.StoreCorrupt,
      `job ${record.id} has an unreadable checkpoint:\n${z.prettifyError(parsed.error)}`,
    );
  return parsed.data as unknown as RolloutState;
}

function jobStatusOf(state: RolloutState): JobStatus {
  switch (state.phase.kind) {
    case "awaiting-approval":
      return "awaiting-approval";
    case "paused":
      return "paused";
    case "finished":
      return state.phase.result;
    default:
      return "running";
  }
}

/** The job record that checkpoints `state` (store-owned fields are kept from `base`). */
export function recordWithState(base: JobRecord, state: RolloutState): JobRecord {
  const approval = state.phase.kind === "awaiting-approval" ? state.phase.approval : null;
  return {
    ...base,
    status: jobStatusOf(state),
    updatedAt: state.updatedAt,
    pendingApproval: approval ? { id: approval.id, kind: approval.kind } : null,
    state,
  };
}
