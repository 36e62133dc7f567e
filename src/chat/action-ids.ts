import { z } from "zod";

/**
 * Every Slack `action_id` the bot sends or listens to (one place, so views and listeners agree).
 * Each is ≤ 255 characters, as Block Kit requires.
 */
export const ActionId = {
  Approve: "connect-roll.approve",
  Abort: "connect-roll.abort",
  KeepWaiting: "connect-roll.keep-waiting",
  ContinueAnyway: "connect-roll.continue-anyway",
  RestartTasks: "connect-roll.restart-tasks",
  RestartAgain: "connect-roll.restart-again",
  ContinueWithout: "connect-roll.continue-without",
  RollBack: "connect-roll.rollback",
} as const;

export type ActionId = (typeof ActionId)[keyof typeof ActionId];

/**
 * The buttons of a fleet's stage prompt. Their value carries the fleet run's id as `jobId` and `<fleet>:<stage>` as
 * `approvalId` (fleet names, like cluster names, have no ':').
 */
export const FleetActionId = {
  ApproveStage: "connect-roll.fleet-approve-stage",
  AbortFleet: "connect-roll.fleet-abort",
} as const;

/** Block Kit's limit for a button's `value`. */
export const MAX_ACTION_VALUE_LENGTH = 2000;

const idSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._:-]+$/, "only letters, digits, '.', '_', ':' and '-'");

const actionValueSchema = z.strictObject({
  v: z.literal(1),
  jobId: idSchema,
  approvalId: idSchema.optional(),
});

/** What a button carries: the job, and for approval buttons the approval it answers. Opaque ids only. */
export interface ActionValue {
  jobId: string;
  approvalId?: string;
}

export type DecodedActionValue = { kind: "ok"; value: ActionValue } | { kind: "error"; message: string };

/** Encodes a button value (versioned JSON). Throws a TypeError on ids that could never decode: a programming error. */
export function encodeActionValue(value: ActionValue): string {
  const parsed = actionValueSchema.safeParse({ v: 1, ...value });
  if (!parsed.success) throw new TypeError(`invalid action value: ${z.prettifyError(parsed.error)}`);
  const text = JSON.stringify(parsed.data);
  if (text.length > MAX_ACTION_VALUE_LENGTH) {
    throw new TypeError(`action value is ${text.length} characters, Slack allows ${MAX_ACTION_VALUE_LENGTH}`);
  }
  return text;
}

/** Decodes a button value from a Slack payload; never throws. */
export function decodeActionValue(text: string): DecodedActionValue {
  if (typeof text !== "string" || text.length === 0)
    return { kind: "error", message: "the button value is empty" };
  if (text.length > MAX_ACTION_VALUE_LENGTH) {
    return {
      kind: "error",
      message: `the button value is longer than ${MAX_ACTION_VALUE_LENGTH} characters`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "error", message: "the button value is not JSON" };
  }
  const parsed = actionValueSchema.safeParse(json);
  if (!parsed.success) return { kind: "error", message: z.prettifyError(parsed.error) };
  const { jobId, approvalId } = parsed.data;
  return { kind: "ok", value: approvalId === undefined ? { jobId } : { jobId, approvalId } };
}
