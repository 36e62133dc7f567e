/**
 * Responses shaped like a real Connect 3.x worker's, and an older JMX exporter's scrape (real ones:
 * recorded-cluster.ts).
 */

export function serverInfo(version: string): unknown {
  return { version, commit: "5e3c2b738d253ff5", kafka_cluster_id: "R3q9Dh8yQlWm2xJ0cT1uVw" };
}

export const HEALTHY = {
  status: "healthy",
  message: "Worker has completed startup and is ready to handle requests.",
};
export const STARTING = { status: "starting", message: "Worker is still starting up." };

export const REBALANCE_ERROR = {
  error_code: 409,
  message:
    "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)",
};

export function expandedConnectors(workerIds: readonly string[]): Record<string, unknown> {
  const [w0 = "10.0.0.5:8083", w1 = w0, w2 = w1] = workerIds;
  return {
    "orders-sink": {
      status: {
        name: "orders-sink",
        connector: { state: "RUNNING", worker_id: w0 },
        tasks: [
          { id: 1, state: "RUNNING", worker_id: w2 },
          { id: 0, state: "RUNNING", worker_id: w1 },
        ],
        type: "sink",
      },
      info: {
        name: "orders-sink",
        config: {
          "tasks.max": "2",
          topics: "orders",
          "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
          name: "orders-sink",
        },
        tasks: [
          { connector: "orders-sink", task: 0 },
          { connector: "orders-sink", task: 1 },
        ],
        type: "sink",
      },
    },
    "cdc-source": {
      status: {
        name: "cdc-source",
        connector: { state: "RUNNING", worker_id: w1 },
        tasks: [
          {
            id: 0,
            state: "FAILED",
            worker_id: w0,
            trace: "org.apache.kafka.connect.errors.ConnectException: boom\n\tat ...",
          },
        ],
        type: "source",
      },
      info: {
        name: "cdc-source",
        config: { "connector.class": "io.debezium.connector.postgresql.PostgresConnector", "tasks.max": "1" },
        tasks: [{ connector: "cdc-source", task: 0 }],
        type: "source",
      },
    },
  };
}

export function jmxExporterScrape(opts: { leader: string; epoch: number; assignedTasks: number }): string {
  return `# HELP jmx_scrape_duration_seconds Time this JMX scrape took, in seconds.
# TYPE jmx_scrape_duration_seconds gauge
jmx_scrape_duration_seconds 0.021843
# HELP kafka_connect_worker_rebalance_connect_protocol Kafka Connect JMX metric type connect-worker-rebalance-metrics
# TYPE kafka_connect_worker_rebalance_connect_protocol untyped
kafka_connect_worker_rebalance_connect_protocol{connect_protocol="SESSIONED",} 1.0
# TYPE kafka_connect_worker_rebalance_leader_name untyped
kafka_connect_worker_rebalance_leader_name{leader_name="${opts.leader}",} 1.0
# TYPE kafka_connect_worker_rebalance_epoch gauge
kafka_connect_worker_rebalance_epoch ${opts.epoch}.0
# TYPE kafka_connect_worker_rebalance_rebalancing gauge
kafka_connect_worker_rebalance_rebalancing 0.0
# TYPE kafka_connect_worker_rebalance_completed_rebalances_total counter
kafka_connect_worker_rebalance_completed_rebalances_total 12.0
# TYPE kafka_connect_worker_rebalance_time_since_last_rebalance_ms gauge
kafka_connect_worker_rebalance_time_since_last_rebalance_ms 183204.0
# TYPE kafka_connect_worker_rebalance_rebalance_avg_time_ms gauge
kafka_connect_worker_rebalance_rebalance_avg_time_ms 52.5
# TYPE kafka_connect_worker_connector_count gauge
kafka_connect_worker_connector_count 1.0
# TYPE kafka_connect_worker_task_count gauge
kafka_connect_worker_task_count ${opts.assignedTasks}.0
kafka_connect_worker_connector_running_task_count{connector="orders-sink",} 1.0
# TYPE kafka_connect_coordinator_assigned_connectors gauge
kafka_connect_coordinator_assigned_connectors{clientid="connect-1",} 1.0
# TYPE kafka_connect_coordinator_assigned_tasks gauge
kafka_connect_coordinator_assigned_tasks{clientid="connect-1",} ${opts.assignedTasks}.0
`;
}
