import { request } from "undici";

/** Small Connect REST calls the lab makes itself (each bounded in time). */
export interface RestReply {
  readonly status: number;
  readonly body: unknown;
}

export async function restCall(
  url: string,
  method: "GET" | "PUT" | "POST" = "GET",
  body?: unknown,
  timeoutMs = 5_000,
): Promise<RestReply | null> {
  try {
    const res = await request(url, {
      method,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? null : (JSON.parse(text) as unknown);
    } catch {
      // Not JSON: keep the text.
    }
    return { status: res.statusCode, body: parsed };
  } catch {
    return null;
  }
}

export interface ConnectorStatus {
  readonly name: string;
  readonly tasks: readonly { readonly id: number; readonly state: string; readonly worker_id: string }[];
}

/** `GET /connectors?expand=status` from the first worker that answers 200. */
export async function readStatuses(urls: readonly string[]): Promise<ConnectorStatus[] | null> {
  for (const url of urls) {
    const r = await restCall(`${url}/connectors?expand=status`, "GET", undefined, 3_000);
    if (r?.status !== 200 || typeof r.body !== "object" || r.body === null) continue;
    // Before 2.3 `expand` is ignored and the answer is the list of names: one status call per connector.
    if (Array.isArray(r.body)) {
      const out: ConnectorStatus[] = [];
      for (const name of r.body as string[]) {
        const one = await restCall(
          `${url}/connectors/${encodeURIComponent(name)}/status`,
          "GET",
          undefined,
          3_000,
        );
        const tasks = (one?.body as { tasks?: ConnectorStatus["tasks"] } | null)?.tasks ?? [];
        out.push({ name, tasks });
      }
      return out;
    }
    return Object.entries(r.body as Record<string, { status?: { tasks?: ConnectorStatus["tasks"] } }>).map(
      ([name, v]) => ({ name, tasks: v.status?.tasks ?? [] }),
    );
  }
  return null;
}

export function labConnectorConfig(
  name: string,
  tasksMax: number,
  throughput: number,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    "connector.class": "connectroll.lab.LabSourceConnector",
    "tasks.max": String(tasksMax),
    topic: name,
    throughput: String(throughput),
    "topic.creation.default.partitions": String(Math.max(1, tasksMax)),
    "topic.creation.default.replication.factor": "1",
    ...extra,
  };
}
