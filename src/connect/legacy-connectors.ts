import { z } from "zod";
import { AppError, ErrorCode, toAppError } from "../core/errors.js";
import type { HttpClient } from "./http-client.js";
import { connectorStateInfoSchema, type ExpandedConnector, type ExpandedConnectors } from "./schemas.js";

const namesSchema = z.array(z.string());
const configSchema = z.record(z.string(), z.string());
const tasksSchema = z.array(
  z.object({ id: z.object({ connector: z.string(), task: z.number().int().min(0) }) }),
);

/** True when `GET /connectors?expand=…` answered a plain list of names: a worker older than 2.3 ignores `expand`. */
export function isLegacyConnectorList(json: unknown): json is string[] {
  return namesSchema.safeParse(json).success;
}

function parsed<T>(schema: z.ZodType<T>, json: unknown, what: string, url: string): T {
  const r = schema.safeParse(json);
  if (!r.success)
    throw new AppError(
      ErrorCode.ConnectBadResponse,
      `${what} from ${url} is not what Connect returns: ${z.prettifyError(r.error)}`,
    );
  return r.data;
}

/**
 * Workers before 2.3 have no `expand` (KIP PR #6658): read each connector's status, config and tasks instead. Only
 * used when no worker of the cluster answers the expanded call (e.g. a whole 2.2 cluster at the start of an upgrade).
 * A connector deleted between the calls (404) is skipped, as the expanded call would.
 */
export async function readLegacyConnectors(
  client: HttpClient,
  base: string,
  names: readonly string[],
  signal: AbortSignal | undefined,
): Promise<ExpandedConnectors> {
  const connectors: ExpandedConnector[] = [];
  const skipped: { name: string; reason: string }[] = [];
  for (const name of [...names].sort()) {
    const url = `${base}/connectors/${encodeURIComponent(name)}`;
    try {
      const [status, config, tasks] = await Promise.all(
        ["/status", "/config", "/tasks"].map((p) =>
          client.getJson({ url: `${url}${p}`, ...(signal ? { signal } : {}) }),
        ),
      );
      if (!status || !config || !tasks) continue;
      const s = parsed(connectorStateInfoSchema, status.json, "connector status", status.url);
      const taskIds = parsed(tasksSchema, tasks.json, "connector tasks", tasks.url).map((t) => t.id);
      connectors.push({
        name,
        status: s,
        info: {
          name,
          config: parsed(configSchema, config.json, "connector config", config.url),
          tasks: taskIds,
          ...(s.type ? { type: s.type } : {}),
        },
      });
    } catch (err) {
      const e = toAppError(err, ErrorCode.ConnectBadResponse);
      if (e.code === ErrorCode.ConnectHttpStatus && e.details.status === 404) {
        skipped.push({ name, reason: "the connector disappeared during the lookup" });
        continue;
      }
      throw e;
    }
  }
  return { connectors, skipped };
}
