import { atLeast, parseKafkaVersion } from "../core/version.js";
import type { WorkerRestView } from "./connect-view.js";

/**
 * A worker's `GET /metrics` in Prometheus text format, with the series names Strimzi's JMX-exporter rules produce
 * (docs/connect-behaviour.md#metrics). `connect_protocol` exists only from 2.4 (KAFKA-8804).
 */
export function renderWorkerMetrics(view: WorkerRestView, clientId: string): string {
  const lines: string[] = [];
  const gauge = (name: string, help: string, value: number, labels = "") => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}${labels} ${formatValue(value)}`);
  };
  const v = parseKafkaVersion(view.version);
  if (view.protocol && v && atLeast(v, 2, 4)) {
    lines.push(
      "# HELP kafka_connect_worker_rebalance_connect_protocol The Connect protocol used by this cluster",
      "# TYPE kafka_connect_worker_rebalance_connect_protocol untyped",
      `kafka_connect_worker_rebalance_connect_protocol{connect_protocol="${view.protocol.toUpperCase()}"} 1`,
    );
  }
  if (view.leaderUrl) {
    lines.push(
      "# HELP kafka_connect_worker_rebalance_leader_name The name of the group leader",
      "# TYPE kafka_connect_worker_rebalance_leader_name untyped",
      `kafka_connect_worker_rebalance_leader_name{leader_name="${view.leaderUrl}"} 1`,
    );
  }
  gauge("kafka_connect_worker_rebalance_epoch", "The epoch or generation number of this worker", view.epoch);
  gauge(
    "kafka_connect_worker_rebalance_rebalancing",
    "Whether this worker is currently rebalancing",
    view.rebalancing ? 1 : 0,
  );
  lines.push(
    "# HELP kafka_connect_worker_rebalance_completed_rebalances_total The total number of rebalances completed by this worker",
    "# TYPE kafka_connect_worker_rebalance_completed_rebalances_total counter",
    `kafka_connect_worker_rebalance_completed_rebalances_total ${view.completedRebalances}`,
  );
  gauge(
    "kafka_connect_worker_rebalance_time_since_last_rebalance_ms",
    "The time in milliseconds since this worker completed the most recent rebalance",
    view.timeSinceLastRebalanceMs,
  );
  gauge(
    "kafka_connect_worker_connector_count",
    "The number of connectors run in this worker",
    view.connectorCount,
  );
  gauge("kafka_connect_worker_task_count", "The number of tasks run in this worker", view.taskCount);
  const client = `{clientid="${clientId}"}`;
  gauge(
    "kafka_connect_coordinator_assigned_connectors",
    "The number of connector instances currently assigned to this consumer",
    view.connectorCount,
    client,
  );
  gauge(
    "kafka_connect_coordinator_assigned_tasks",
    "The number of tasks currently assigned to this consumer",
    view.taskCount,
    client,
  );
  if (view.startTimeMs !== null) {
    // Connect's `kafka.connect:type=app-info,client-id=<id>` attribute `start-time-ms`, as the exporter rule in the
    // README ("Worker start time") names it.
    gauge(
      "kafka_connect_app_info_start_time_ms",
      "Metric indicating start-time-ms",
      view.startTimeMs,
      client,
    );
  }
  lines.push(...renderTaskFlow(view.taskFlow));
  return `${lines.join("\n")}\n`;
}

/**
 * The per-task series Strimzi's rules (and ours, deploy/jmx-exporter/connect.yml) make of Connect's task metric
 * groups, labels in the exporter's (alphabetical) order; a sink task's consumer lag per partition under its client
 * id `connector-consumer-<connector>-<task>` (one partition per sink task here: `topic-<connector>`, partition = task).
 */
function renderTaskFlow(tasks: WorkerRestView["taskFlow"]): string[] {
  const series = new Map<string, { type: string; help: string; samples: string[] }>();
  const add = (name: string, type: string, help: string, labels: string, value: number) => {
    let s = series.get(name);
    if (!s) {
      s = { type, help, samples: [] };
      series.set(name, s);
    }
    s.samples.push(`${name}{${labels}} ${formatValue(value)}`);
  };
  for (const t of tasks) {
    const labels = `connector="${t.connector}",task="${t.task}"`;
    add(
      "kafka_connect_connector_task_status",
      "untyped",
      "Kafka Connect JMX Connector task status",
      `connector="${t.connector}",status="${t.status}",task="${t.task}"`,
      1,
    );
    if (t.kind === "source") {
      add(
        "kafka_connect_source_task_source_record_poll_total",
        "counter",
        "source records polled",
        labels,
        t.records,
      );
      add(
        "kafka_connect_source_task_source_record_write_total",
        "counter",
        "source records written",
        labels,
        t.records,
      );
    } else {
      add(
        "kafka_connect_sink_task_sink_record_read_total",
        "counter",
        "sink records read",
        labels,
        t.records,
      );
      add(
        "kafka_connect_sink_task_sink_record_send_total",
        "counter",
        "sink records sent",
        labels,
        t.records,
      );
      add(
        "kafka_consumer_fetch_manager_records_lag",
        "gauge",
        "The latest lag of the partition",
        `clientid="connector-consumer-${t.connector}-${t.task}",partition="${t.task}",topic="topic-${t.connector}"`,
        t.lag ?? 0,
      );
      add(
        "kafka_consumer_fetch_manager_fetch_total",
        "counter",
        "The total number of fetch requests",
        `clientid="connector-consumer-${t.connector}-${t.task}"`,
        t.fetches ?? 0,
      );
    }
    add("kafka_connect_task_error_total_record_failures", "gauge", "record failures", labels, t.failures);
    add(
      "kafka_connect_task_error_deadletterqueue_produce_failures",
      "gauge",
      "DLQ produce failures",
      labels,
      0,
    );
  }
  const out: string[] = [];
  for (const [name, s] of series)
    out.push(`# HELP ${name} ${s.help}`, `# TYPE ${name} ${s.type}`, ...s.samples);
  return out;
}

function formatValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return Number.isInteger(value) ? `${value}.0` : String(value);
}
