import { z } from "zod";
import { AppError, ErrorCode } from "../core/errors.js";
import type { ConnectorState, ConnectorType, TaskState, WorkerHealth } from "../core/snapshot.js";

/** zod schemas of the Connect REST answers we read (docs/connect-behaviour.md#the-rest-api), and their parsers. */

const TASK_STATES: readonly TaskState[] = ["RUNNING", "PAUSED", "FAILED", "UNASSIGNED", "RESTARTING"];
const CONNECTOR_STATES: readonly ConnectorState[] = [...TASK_STATES, "STOPPED"];

/** Any state string we do not know (e.g. DESTROYED, or one from a future version) becomes "UNKNOWN". */
const taskStateSchema = z.string().transform((s): TaskState => TASK_STATES.find((t) => t === s) ?? "UNKNOWN");
const connectorStateSchema = z
  .string()
  .transform((s): ConnectorState => CONNECTOR_STATES.find((t) => t === s) ?? "UNKNOWN");
const connectorTypeSchema = z
  .string()
  .transform((s): ConnectorType => (s === "source" || s === "sink" ? s : "unknown"));
/** `worker_id` and `trace` may be absent or null; both become null. */
const optionalText = z
  .string()
  .nullish()
  .transform((s) => s ?? null);

const serverInfoSchema = z.object({
  version: z.string().min(1),
  commit: z.string().nullish(),
  kafka_cluster_id: z.string().nullish(),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

const healthSchema = z.object({
  status: z.string(),
  message: z.string().nullish(),
});

export const connectorStateInfoSchema = z.object({
  name: z.string(),
  connector: z.object({ state: connectorStateSchema, worker_id: optionalText, trace: optionalText }),
  tasks: z.array(
    z.object({
      id: z.number().int().min(0),
      state: taskStateSchema,
      worker_id: optionalText,
      trace: optionalText,
    }),
  ),
  type: connectorTypeSchema.optional(),
});
export type ConnectorStateInfo = z.infer<typeof connectorStateInfoSchema>;

const connectorInfoSchema = z.object({
  name: z.string(),
  config: z.record(z.string(), z.string()),
  tasks: z.array(z.object({ connector: z.string(), task: z.number().int().min(0) })),
  type: connectorTypeSchema.optional(),
});
export type ConnectorInfo = z.infer<typeof connectorInfoSchema>;

/** One entry of `GET /connectors?expand=status&expand=info`; both halves optional so that a partial entry is seen. */
const expandedEntrySchema = z.object({
  status: connectorStateInfoSchema.nullish(),
  info: connectorInfoSchema.nullish(),
});

export interface ExpandedConnector {
  readonly name: string;
  readonly status: ConnectorStateInfo;
  readonly info: ConnectorInfo;
}

export interface SkippedConnector {
  readonly name: string;
  /** Why the entry was left out, e.g. it disappeared during the lookup or was malformed. */
  readonly reason: string;
}

export interface ExpandedConnectors {
  readonly connectors: readonly ExpandedConnector[];
  readonly skipped: readonly SkippedConnector[];
}

function badResponse(what: string, url: string, error: z.ZodError): AppError {
  return new AppError(
    ErrorCode.ConnectBadResponse,
    `Unexpected answer to ${what} from ${url}:\n${z.prettifyError(error)}`,
    {
      details: { url, issues: error.issues.length },
    },
  );
}

/** `GET /`. Throws `connect/bad-response` when the shape is wrong. */
export function parseServerInfo(json: unknown, url: string): ServerInfo {
  const parsed = serverInfoSchema.safeParse(json);
  if (!parsed.success) throw badResponse("GET /", url, parsed.error);
  return parsed.data;
}

/**
 * `GET /health` (3.9+), answered with 200, 503 (starting) or 500 (unhealthy). The body's status wins; an unknown
 * status string falls back to what the HTTP status means.
 */
export function parseHealth(json: unknown, httpStatus: number, url: string): WorkerHealth {
  const parsed = healthSchema.safeParse(json);
  if (!parsed.success) throw badResponse("GET /health", url, parsed.error);
  const status = parsed.data.status.toLowerCase();
  if (status === "healthy" || status === "starting" || status === "unhealthy") return status;
  if (httpStatus === 200) return "healthy";
  if (httpStatus === 503) return "starting";
  if (httpStatus === 500) return "unhealthy";
  return "unknown";
}

/**
 * `GET /connectors?expand=status&expand=info`. The top level must be an object (else `connect/bad-response`); a
 * connector entry without `status` or `info` (it disappeared between the two lookups) or with a malformed half is
 * skipped and reported, never a crash of the whole read.
 */
export function parseExpandedConnectors(json: unknown, url: string): ExpandedConnectors {
  const top = z.record(z.string(), z.unknown()).safeParse(json);
  if (!top.success) throw badResponse("GET /connectors?expand=status&expand=info", url, top.error);
  const connectors: ExpandedConnector[] = [];
  const skipped: SkippedConnector[] = [];
  for (const [name, raw] of Object.entries(top.data)) {
    const entry = expandedEntrySchema.safeParse(raw);
    if (!entry.success) {
      skipped.push({ name, reason: `malformed entry: ${z.prettifyError(entry.error)}` });
      continue;
    }
    const { status, info } = entry.data;
    if (!status || !info) {
      const missing = [status ? null : "status", info ? null : "info"]
        .filter((m) => m !== null)
        .join(" and ");
      skipped.push({ name, reason: `no ${missing} (the connector disappeared during the lookup)` });
      continue;
    }
    connectors.push({ name, status, info });
  }
  connectors.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { connectors, skipped };
}
