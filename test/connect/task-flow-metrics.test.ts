import { describe, expect, it } from "vitest";
import { parsePrometheusText } from "../../src/connect/prometheus.js";
import { taskFlowFromPrometheus } from "../../src/connect/task-flow-metrics.js";

const flow = (text: string) => taskFlowFromPrometheus(parsePrometheusText(text).samples);

describe("taskFlowFromPrometheus", () => {
  it("reads sources, sinks, their errors, and a sink's lag summed over its partitions", () => {
    expect(
      flow(
        [
          'kafka_connect_source_task_source_record_write_total{connector="orders",task="0"} 1204.0',
          'kafka_connect_source_task_source_record_poll_total{connector="orders",task="0"} 1210.0',
          'kafka_connect_task_error_total_record_failures{connector="orders",task="0"} 0.0',
          'kafka_connect_task_error_deadletterqueue_produce_failures{connector="orders",task="0"} 0.0',
          'kafka_connect_sink_task_sink_record_read_total{connector="orders-sink",task="2"} 980.0',
          'kafka_connect_task_error_total_record_failures{connector="orders-sink",task="2"} 2.0',
          'kafka_connect_task_error_deadletterqueue_produce_failures{connector="orders-sink",task="2"} 1.0',
          'kafka_consumer_fetch_manager_records_lag{clientid="connector-consumer-orders-sink-2",partition="0",topic="orders"} 100.0',
          'kafka_consumer_fetch_manager_records_lag{clientid="connector-consumer-orders-sink-2",partition="3",topic="orders"} 24.0',
          'kafka_consumer_fetch_manager_fetch_total{clientid="connector-consumer-orders-sink-2"} 311.0',
        ].join("\n"),
      ),
    ).toEqual({
      "orders/0": { kind: "source", records: 1204, lag: null, fetches: null, failures: 0 },
      "orders-sink/2": { kind: "sink", records: 980, lag: 124, fetches: 311, failures: 3 },
    });
  });

  it("reads Strimzi's rules, which export records-lag-avg and -max under records_lag with an _objectname", () => {
    const objectName = (attribute: string) =>
      `_objectname="kafka.consumer<type=consumer-fetch-manager-metrics, client-id=connector-consumer-s-0, topic=t, partition=0><>${attribute}"`;
    const result = flow(
      [
        'kafka_connect_sink_task_sink_record_read_total{connector="s",task="0"} 50.0',
        `kafka_consumer_fetch_manager_records_lag{${objectName("records-lag")},clientid="connector-consumer-s-0",partition="0",topic="t"} 7.0`,
        `kafka_consumer_fetch_manager_records_lag{${objectName("records-lag-avg")},clientid="connector-consumer-s-0",partition="0",topic="t"} 3.5`,
        `kafka_consumer_fetch_manager_records_lag{${objectName("records-lag-max")},clientid="connector-consumer-s-0",partition="0",topic="t"} 40.0`,
      ].join("\n"),
    );
    expect(result?.["s/0"]?.lag).toBe(7);
  });

  it("leaves out the worker's own consumers and a task without its records counter", () => {
    expect(
      flow(
        [
          'kafka_consumer_fetch_manager_records_lag{clientid="connect-lab-connect-worker-1-configs",partition="0",topic="configs"} 0.0',
          'kafka_consumer_fetch_manager_records_lag{clientid="connector-consumer-s-1",partition="0",topic="t"} 9.0',
          'kafka_connect_task_error_total_record_failures{connector="s",task="1"} 0.0',
        ].join("\n"),
      ),
    ).toEqual({});
  });

  it("is null when the scrape has no per-task series at all (an exporter without the per-task rules)", () => {
    expect(flow('kafka_connect_coordinator_assigned_tasks{clientid="connect-1"} 4\n')).toBeNull();
    expect(flow("")).toBeNull();
  });

  it("skips values that are not finite", () => {
    expect(
      flow('kafka_connect_source_task_source_record_write_total{connector="a",task="0"} NaN\n'),
    ).toBeNull();
  });
});

describe("an exactly-once source task's transactions", () => {
  it("committed once transaction-size-avg has a value, none while it is NaN, absent without the series", () => {
    expect(
      flow(
        [
          'kafka_connect_source_task_source_record_write_total{connector="eos",task="0"} 40.0',
          'kafka_connect_source_task_transaction_size_avg{connector="eos",task="0"} 1.0',
          'kafka_connect_source_task_source_record_write_total{connector="eos",task="1"} 3.0',
          'kafka_connect_source_task_transaction_size_avg{connector="eos",task="1"} NaN',
          'kafka_connect_source_task_source_record_write_total{connector="plain",task="0"} 9.0',
        ].join("\n"),
      ),
    ).toEqual({
      "eos/0": {
        kind: "source",
        records: 40,
        lag: null,
        fetches: null,
        failures: 0,
        transactions: "committed",
      },
      "eos/1": { kind: "source", records: 3, lag: null, fetches: null, failures: 0, transactions: "none" },
      "plain/0": { kind: "source", records: 9, lag: null, fetches: null, failures: 0 },
    });
  });
});
