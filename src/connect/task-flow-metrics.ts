import type { TaskFlowReading } from "../core/snapshot.js";
import type { PrometheusSample } from "./prometheus-sample.js";

/**
 * The per-task series connect-roll reads for data flow, with the names Strimzi's example rules (and ours,
 * deploy/jmx-exporter/connect.yml) give Connect's task metric groups, and each one's JMX attribute: an exporter
 * whose gauge pattern is not anchored (Strimzi's) exports `records-lag-avg` and `-max` under `records_lag` too, told
 * apart only by an `_objectname` label, so a sample that carries one must name exactly this attribute.
 */
export const TASK_FLOW_METRICS = {
  sourceWritten: {
    name: "kafka_connect_source_task_source_record_write_total",
    attribute: "source-record-write-total",
  },
  sinkRead: { name: "kafka_connect_sink_task_sink_record_read_total", attribute: "sink-record-read-total" },
  recordFailures: {
    name: "kafka_connect_task_error_total_record_failures",
    attribute: "total-record-failures",
  },
  dlqFailures: {
    name: "kafka_connect_task_error_deadletterqueue_produce_failures",
    attribute: "deadletterqueue-produce-failures",
  },
  consumerLag: { name: "kafka_consumer_fetch_manager_records_lag", attribute: "records-lag" },
  consumerFetches: { name: "kafka_consumer_fetch_manager_fetch_total", attribute: "fetch-total" },
  /** An exactly-once source task's: recorded only when a transaction commits (NaN until the instance's first). */
  transactionSize: {
    name: "kafka_connect_source_task_transaction_size_avg",
    attribute: "transaction-size-avg",
  },
} as const;

/** A sink task's consumer: `connector-consumer-<connector>-<task>` (Connect's `Worker`). */
const SINK_CONSUMER = /^connector-consumer-(.+)-(\d+)$/;

const BY_NAME: ReadonlyMap<string, (typeof TASK_FLOW_METRICS)[keyof typeof TASK_FLOW_METRICS]> = new Map(
  Object.values(TASK_FLOW_METRICS).map((m) => [m.name, m]),
);

/** Every series name this module reads (for a reader that parses only what it needs). */
export const TASK_FLOW_METRIC_NAMES: ReadonlySet<string> = new Set(BY_NAME.keys());

function exactAttribute(sample: PrometheusSample, attribute: string): boolean {
  const objectName = sample.labels._objectname;
  return objectName === undefined || objectName.endsWith(`><>${attribute}`);
}

interface Partial {
  kind: "source" | "sink" | null;
  records: number | null;
  lag: number | null;
  fetches: number | null;
  failures: number;
  transactions: "committed" | "none" | null;
}

/**
 * Each task's reading from one worker's samples, by "connector/N"; null when the samples have no per-task series at
 * all. A task whose records counter is missing (a sink's lag alone, say) is left out.
 */
export function taskFlowFromPrometheus(
  samples: readonly PrometheusSample[],
): Readonly<Record<string, TaskFlowReading>> | null {
  const tasks = new Map<string, Partial>();
  let seen = false;
  const entry = (key: string): Partial => {
    let e = tasks.get(key);
    if (e === undefined) {
      e = { kind: null, records: null, lag: null, fetches: null, failures: 0, transactions: null };
      tasks.set(key, e);
    }
    return e;
  };
  const m = TASK_FLOW_METRICS;
  for (const s of samples) {
    const metric = BY_NAME.get(s.name);
    if (metric === undefined || !exactAttribute(s, metric.attribute)) continue;
    if (metric === m.transactionSize) {
      const { connector, task } = s.labels;
      if (connector === undefined || task === undefined || !/^\d+$/.test(task)) continue;
      seen = true;
      entry(`${connector}/${task}`).transactions = Number.isFinite(s.value) ? "committed" : "none";
      continue;
    }
    if (!Number.isFinite(s.value)) continue;
    seen = true;
    if (metric === m.consumerLag || metric === m.consumerFetches) {
      const client = SINK_CONSUMER.exec(s.labels.clientid ?? "");
      if (!client) continue;
      const e = entry(`${client[1]}/${client[2]}`);
      if (metric === m.consumerLag) e.lag = (e.lag ?? 0) + Math.max(0, s.value);
      else e.fetches = s.value;
      continue;
    }
    const { connector, task } = s.labels;
    if (connector === undefined || task === undefined || !/^\d+$/.test(task)) continue;
    const e = entry(`${connector}/${task}`);
    if (metric === m.sourceWritten) {
      e.kind = "source";
      e.records = s.value;
    } else if (metric === m.sinkRead) {
      e.kind = "sink";
      e.records = s.value;
    } else {
      e.failures += Math.max(0, s.value);
    }
  }
  if (!seen) return null;
  const out: Record<string, TaskFlowReading> = {};
  for (const [key, e] of tasks) {
    if (e.kind === null || e.records === null) continue;
    const sink = e.kind === "sink";
    out[key] = {
      kind: e.kind,
      records: e.records,
      lag: sink ? e.lag : null,
      fetches: sink ? e.fetches : null,
      failures: e.failures,
      ...(e.kind === "source" && e.transactions !== null ? { transactions: e.transactions } : {}),
    };
  }
  return out;
}
