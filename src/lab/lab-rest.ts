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

export type LabConnectorKind = "source" | "sink";

export interface LabConnectorSettings {
  readonly kind: LabConnectorKind;
  /** Records per second per source task (0: idle). */
  readonly throughput: number;
  readonly taskStartMs: number;
  /** A Kafka version on which source tasks produce a tenth of `throughput` (null or absent: none). */
  readonly slowOnVersion?: string | null;
  /** Where a task finds the lab's stall files. */
  readonly controlDir: string;
  /** What a sink reads: the source connectors' topics (each writes to a topic of its name). */
  readonly topics: readonly string[];
  /** Exactly-once sources and read_committed sinks (null or absent: at-least-once, the default consumer). */
  readonly exactlyOnce?: LabExactlyOnce | null;
}

/** How the lab's connectors run under exactly-once (KIP-618). */
export interface LabExactlyOnce {
  /** A source's `transaction.boundary`: one transaction per poll, or per interval. */
  readonly boundary: "poll" | "interval";
  /** `transaction.boundary.interval.ms` when the boundary is `interval`. */
  readonly intervalMs: number;
}

export function labConnectorConfig(
  name: string,
  tasksMax: number,
  settings: LabConnectorSettings,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const common = {
    "tasks.max": String(tasksMax),
    "lab.task.start.ms": String(settings.taskStartMs),
    "lab.control.dir": settings.controlDir,
  };
  const eos = settings.exactlyOnce ?? null;
  if (settings.kind === "sink")
    return {
      "connector.class": "connectroll.lab.LabSinkConnector",
      ...common,
      topics: settings.topics.join(","),
      // What a transactional consumer sees: records of aborted or open transactions are not delivered.
      ...(eos === null ? {} : { "consumer.override.isolation.level": "read_committed" }),
      ...extra,
    };
  const transactions =
    eos === null
      ? {}
      : {
          "exactly.once.support": "required",
          "transaction.boundary": eos.boundary,
          ...(eos.boundary === "interval"
            ? { "transaction.boundary.interval.ms": String(eos.intervalMs) }
            : {}),
        };
  return {
    "connector.class":
      eos === null ? "connectroll.lab.LabSourceConnector" : "connectroll.lab.LabExactlyOnceSourceConnector",
    ...transactions,
    ...common,
    topic: name,
    throughput: String(settings.throughput),
    ...(settings.slowOnVersion ? { "lab.slow.on.version": settings.slowOnVersion } : {}),
    "topic.creation.default.partitions": String(Math.max(1, tasksMax)),
    "topic.creation.default.replication.factor": "1",
    ...extra,
  };
}
