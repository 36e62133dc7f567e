import { z } from "zod";
import { ROLLOUT_PACES } from "../core/plan/plan-types.js";
import { durationMs, envName, httpUrl, name } from "../restart/config-fields.js";
import { executorSchema } from "../restart/executors.js";
import { parseRedisUrl } from "./redis-url.js";

/**
 * The configuration file's shape (YAML), validated with zod. Unknown keys are errors (strict objects), every
 * problem is reported with its path. Cross-field rules live in `rules.ts`; defaults are filled here. A cluster's
 * `executor` is one of the executors' own pieces (src/restart/executors.ts).
 */

const slackUserId = z.string().regex(/^[UW][A-Z0-9]{2,}$/, "must be a Slack user id like U012ABCDEF");
const slackGroupId = z.string().regex(/^S[A-Z0-9]{2,}$/, "must be a Slack user-group id like S012ABCDEF");
const slackChannelId = z.string().regex(/^[CGD][A-Z0-9]{2,}$/, "must be a Slack channel id like C012ABCDEF");

export const workerSchema = z.strictObject({
  name: name.describe("the worker's name in plans and threads"),
  url: httpUrl.describe("Connect REST base URL, e.g. http://10.0.0.5:8083"),
  metricsUrl: httpUrl.optional().describe("Prometheus endpoint of the worker (JMX exporter)"),
  pod: name.optional().describe("Kubernetes pod name (kubernetes executor)"),
  connectProtocol: z.enum(["eager", "compatible", "sessioned"]).optional(),
});

const basicAuthSchema = z.strictObject({
  username: z.string().min(1),
  passwordEnv: envName.describe("environment variable holding the password (never put it in the file)"),
});

const tlsSchema = z.strictObject({
  caFile: z.string().min(1).optional(),
  insecureSkipVerify: z.boolean().default(false),
});

const versionsSchema = z.strictObject({
  accept: z
    .string()
    .default("^v?\\d+\\.\\d+(\\.\\d+)?$")
    .describe("regular expression the version argument must match"),
  image: z
    .string()
    .optional()
    .describe("image the executor sets; {version} is the argument without a leading v"),
  reports: z
    .string()
    .default("{version}")
    .describe("what workers must report in GET / once upgraded; 3.7 matches any 3.7.x"),
  table: z
    .record(z.string(), z.strictObject({ image: z.string().optional(), reports: z.string() }))
    .default({})
    .describe("explicit argument → image/reported version entries; checked before the templates"),
});

const connectSchema = z.strictObject({
  protocol: z.enum(["eager", "compatible", "sessioned"]).optional().describe("declared connect.protocol"),
  scheduledRebalanceMaxDelayMs: z.number().int().min(0).max(2_147_483_647).optional(),
  sessionTimeoutMs: durationMs.default(10_000),
  exactlyOnceSourceSupport: z.enum(["disabled", "preparing", "enabled"]).optional(),
});

const gateSchema = z.strictObject({
  pollIntervalMs: durationMs.min(100).default(5_000),
  consecutivePolls: z.number().int().min(1).max(100).default(3),
  quietPeriodMs: durationMs.default(10_000),
  slowAfterMs: durationMs.optional().describe("ask after this long past the expected settle time"),
  workerReturnMs: durationMs
    .min(1_000)
    .optional()
    .describe(
      "ask whether to restart a worker again, go on without it or abort once it is not back this long after its restart (default: 10× the learned restart time, at least 5 minutes)",
    ),
  failAfterMs: durationMs.default(3_600_000),
  allowPaused: z.boolean().default(true),
  stallAfterMs: durationMs
    .min(1_000)
    .default(60_000)
    .describe("a task that flowed and shows no data progress this long while RUNNING is stalled"),
  flowWindowMs: durationMs
    .min(1_000)
    .default(10_000)
    .describe("how long the per-task counters are watched to tell flowing tasks from idle ones"),
});

const accessSchema = z.strictObject({
  users: z.array(slackUserId).default([]),
  userGroups: z.array(slackGroupId).default([]),
});

const dayName = z.enum(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]);
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:MM (24h)");

export const changeWindowSchema = z.strictObject({
  days: z.array(dayName).min(1),
  start: hhmm,
  end: hhmm,
  timezone: z.string().min(1),
});

const slackAccessSchema = z.strictObject({
  channels: z.array(slackChannelId).default([]).describe("channels the command may be used in; empty = any"),
  requesters: accessSchema.prefault({}),
  approvers: accessSchema.prefault({}),
  fourEyes: z.boolean().default(true),
  changeWindows: z.array(changeWindowSchema).default([]),
});

/**
 * A cluster's override of `slack`: only the fields it names replace the global ones (no defaults here, or an
 * override of `requesters` alone would silently reset channels, approvers and change windows).
 */
const clusterAccessSchema = z.strictObject({
  channels: z.array(slackChannelId).optional(),
  requesters: accessSchema.optional(),
  approvers: accessSchema.optional(),
  fourEyes: z.boolean().optional(),
  changeWindows: z.array(changeWindowSchema).optional(),
});

export const clusterSchema = z.strictObject({
  workers: z.array(workerSchema).min(1),
  auth: z.strictObject({ basic: basicAuthSchema }).optional(),
  tls: tlsSchema.optional(),
  versions: versionsSchema.prefault({}),
  executor: executorSchema,
  connect: connectSchema.prefault({}),
  restart: z
    .strictObject({
      expectedMs: durationMs.default(60_000),
      jitter: z
        .number()
        .min(0)
        .max(1)
        .default(0.1)
        .describe("how far one restart may differ from expectedMs, as a share (0.1 = ±10 %)"),
    })
    .prefault({}),
  gate: gateSchema.prefault({}),
  pace: z
    .strictObject({
      mode: z.enum(ROLLOUT_PACES).default("safe"),
      /** Optional safety cap on the share of tasks held at once; unset, only the deadline bounds a window. */
      windowMaxHeldShare: z.number().gt(0).max(1).optional(),
      windowMarginFloorMs: durationMs
        .default(5_000)
        .describe(
          "window pace: how long before the deadline a window's last follower must be back, besides restart.jitter",
        ),
      windowProbeIntervalMs: durationMs
        .min(100)
        .default(1_000)
        .describe("window pace: how often the restarted worker alone is probed (one GET /) while it is away"),
      leaderClosesLastWindow: z
        .boolean()
        .default(true)
        .describe(
          "window pace: restart the leader once the last window's followers are back, not after its deadline",
        ),
    })
    .prefault({}),
  canary: z
    .strictObject({
      soakMs: durationMs
        .default(300_000)
        .describe(
          "how long the first upgraded worker runs beside the old ones before the next step; 0 = no soak",
        ),
      onRestart: z.boolean().default(false).describe("plain restarts soak too (they change no version)"),
      minRateRatio: z
        .number()
        .min(0)
        .max(1)
        .default(0.5)
        .describe("the canary fails when its tasks' record rate is below this share of the old workers'"),
      maxNewFailures: z
        .number()
        .int()
        .min(0)
        .default(0)
        .describe(
          "the canary fails when its tasks record more new record failures than this (and more per task)",
        ),
      maxGcRatio: z
        .number()
        .min(1)
        .default(3)
        .describe(
          "the canary fails when its JVM spends more than this many times the old workers' share in GC",
        ),
      minGcShare: z
        .number()
        .min(0)
        .max(1)
        .default(0.05)
        .describe("a GC share of the soak below which the canary never fails on GC (0.05 = 5 % of the time)"),
      maxHeapShare: z
        .number()
        .min(0)
        .max(1)
        .default(0.9)
        .describe(
          "the canary fails when its heap used is above this share of its max at the soak's end (the old workers' below)",
        ),
    })
    .prefault({}),
  maxTasksPerWorker: z.number().int().min(1).optional(),
  requestTimeoutMs: durationMs.min(100).default(10_000),
  access: clusterAccessSchema.optional().describe("per-cluster override of slack access"),
});

/** Where the job store lives (README, "Redis"). `REDIS_URL` overrides `url`. */
const redisSchema = z.strictObject({
  url: z.string().superRefine((url, ctx) => {
    const parsed = parseRedisUrl(url);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error });
  }),
  /** What a risky Redis setting (eviction policy, no persistence) does at start: a loud warning, or a refusal. */
  checks: z.enum(["warn", "refuse"]).default("warn"),
  tls: z
    .strictObject({
      caFile: z.string().min(1).optional(),
      certFile: z.string().min(1).optional(),
      keyFile: z.string().min(1).optional(),
      serverName: z.string().min(1).optional(),
    })
    .refine((t) => (t.certFile === undefined) === (t.keyFile === undefined), {
      message: "certFile and keyFile go together (mutual TLS)",
    })
    .optional(),
});

/**
 * A fleet: clusters rolled in stages from one command. Each stage's clusters roll at once, each in its own change
 * window, with its own executor and lock; the next stage starts once every one of them succeeded and its data kept
 * flowing for `soakBetweenMs`.
 */
const fleetSchema = z.strictObject({
  stages: z.array(z.array(name).min(1)).min(1).describe("the clusters of each stage, in order"),
  soakBetweenMs: durationMs
    .default(600_000)
    .describe(
      "how long a stage's clusters must keep every task running and moving data before the next stage",
    ),
  approvals: z
    .enum(["after-first", "every-stage", "none"])
    .default("after-first")
    .describe("which stages a person approves before they start (default: every stage after the first)"),
});

export const configSchema = z.strictObject({
  redis: redisSchema.optional(),
  slack: slackAccessSchema.prefault({}),
  clusters: z.record(name, clusterSchema),
  fleets: z.record(name, fleetSchema).default({}),
});

export type Config = z.infer<typeof configSchema>;
export type ClusterConfig = z.infer<typeof clusterSchema>;
export type FleetConfig = z.infer<typeof fleetSchema>;
export type WorkerConfig = z.infer<typeof workerSchema>;
export type SlackAccessConfig = z.infer<typeof slackAccessSchema>;
export type AccessList = z.infer<typeof accessSchema>;
export type ChangeWindow = z.infer<typeof changeWindowSchema>;
