import { z } from "zod";

/**
 * A fleet run as stored: which stages are done, what each cluster's rollout ended with, and how the run ended. Written
 * by `fleet run` at every change, read by `fleet status`, and by the next `fleet run` of the same fleet and version
 * to resume after the first stage not yet done (a stage done was rolled and soaked: it is not soaked again).
 */
export const FLEET_STAGE_STATUSES = [
  "pending",
  "awaiting-approval",
  "running",
  "soaking",
  "succeeded",
  "failed",
  "aborted",
] as const;
export type FleetStageStatus = (typeof FLEET_STAGE_STATUSES)[number];

export const FLEET_CLUSTER_STATUSES = [
  "pending",
  "waiting-window",
  "running",
  "succeeded",
  "failed",
  "aborted",
] as const;
export type FleetClusterStatus = (typeof FLEET_CLUSTER_STATUSES)[number];

const stageSchema = z.object({
  clusters: z.array(
    z.object({
      name: z.string().min(1),
      status: z.enum(FLEET_CLUSTER_STATUSES),
      /** The cluster's rollout job once started (`cr-…`): a replica taking the fleet over waits for it. */
      job: z.string().min(1).nullable().optional(),
    }),
  ),
  status: z.enum(FLEET_STAGE_STATUSES),
});

export const fleetRunRecordSchema = z.object({
  v: z.literal(1),
  /** `fl-` and 8 hex digits. */
  id: z.string().min(1),
  fleet: z.string().min(1),
  target: z.string().min(1),
  /** Who started it (`user@host (cli)`), and the process that runs it now. */
  requestedBy: z.string(),
  owner: z.string(),
  startedAt: z.number(),
  updatedAt: z.number(),
  /** Set when the run resumed an earlier one: that run's id. */
  resumedFrom: z.string().nullable(),
  status: z.enum(["running", "succeeded", "failed", "aborted"]),
  /** Why it ended, or what it waits for (one line). */
  reason: z.string().nullable(),
  stages: z.array(stageSchema).min(1),
  /** The Slack thread of a fleet started in Slack (its parent message); null or absent for a terminal's run. */
  thread: z
    .object({ channel: z.string().min(1), ts: z.string().min(1) })
    .nullable()
    .optional(),
});

export type FleetRunRecord = z.infer<typeof fleetRunRecordSchema>;

/** An abort of a fleet run: who asked, when. */
export const fleetAbortSchema = z.object({ by: z.string(), at: z.number() });
export type FleetStageRecord = FleetRunRecord["stages"][number];

/** A person's answer to a stage's approval prompt in Slack: start it, or abort the fleet. */
export const fleetStageDecisionSchema = z.object({
  decision: z.enum(["approve", "abort"]),
  by: z.string(),
  at: z.number(),
});
export type FleetStageDecision = z.infer<typeof fleetStageDecisionSchema>;

/** The fleet's lock: a cluster lock under a name no cluster can have (cluster names have no ':'). */
export const fleetLockName = (fleet: string): string => `fleet:${fleet}`;

/** The index (from 0) of the first stage a rerun of `previous` must roll, or null when `previous` cannot be resumed. */
export function resumeFrom(
  previous: FleetRunRecord | null,
  fleet: readonly (readonly string[])[],
  target: string,
) {
  if (previous === null || previous.status === "succeeded" || previous.target !== target) return null;
  // Resumable only with the same stages: a fleet whose stages changed since is rolled afresh.
  const same =
    previous.stages.length === fleet.length &&
    previous.stages.every((s, i) => s.clusters.map((c) => c.name).join(",") === (fleet[i] ?? []).join(","));
  if (!same) return null;
  const first = previous.stages.findIndex((s) => s.status !== "succeeded");
  // Every stage done, its end not recorded (the process died in between): nothing is left to roll.
  if (first === -1) return previous.stages.length;
  return first === 0 ? null : first;
}
