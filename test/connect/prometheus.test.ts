import { describe, expect, it } from "vitest";
import {
  metricsFromPrometheus,
  parsePrometheusText,
  parsePrometheusValue,
  protocolFromMetric,
} from "../../src/connect/prometheus.js";
import { jmxExporterScrape } from "./connect-fixtures.js";

describe("parsePrometheusText", () => {
  it("reads HELP, TYPE, comments, labels, values and timestamps", () => {
    const text = [
      "# A free comment",
      "# HELP http_requests_total The total number of HTTP requests.\\nSecond line, with a \\\\ backslash",
      "# TYPE http_requests_total counter",
      'http_requests_total{method="post",code="200"} 1027 1395066363000',
      'http_requests_total{method="post",code="400"}    3   1395066363000',
      "",
      "metric_without_timestamp_and_labels 12.47",
      "  indented_metric\t-3e-2",
      'msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9',
      'something_weird{problem="division by zero"} +Inf -3982045',
      'trailing_comma{a="1",} 1.0\r',
      'spaces_in_labels{ a = "x y" , b="}" } 2',
      "nan_value NaN",
      "neg_inf -Inf",
      "colon:name 5",
      'exemplar_counter_total 17 # {trace_id="abc"} 1.0',
    ].join("\n");
    const parsed = parsePrometheusText(text);
    expect(parsed.errors).toEqual([]);
    expect(parsed.help.get("http_requests_total")).toBe(
      "The total number of HTTP requests.\nSecond line, with a \\ backslash",
    );
    expect(parsed.types.get("http_requests_total")).toBe("counter");
    const byName = (n: string) => parsed.samples.filter((s) => s.name === n);
    expect(byName("http_requests_total")).toEqual([
      {
        name: "http_requests_total",
        labels: { method: "post", code: "200" },
        value: 1027,
        timestampMs: 1395066363000,
      },
      {
        name: "http_requests_total",
        labels: { method: "post", code: "400" },
        value: 3,
        timestampMs: 1395066363000,
      },
    ]);
    expect(byName("metric_without_timestamp_and_labels")[0]).toMatchObject({
      labels: {},
      value: 12.47,
      timestampMs: null,
    });
    expect(byName("indented_metric")[0]?.value).toBe(-0.03);
    expect(byName("msdos_file_access_time_seconds")[0]?.labels).toEqual({
      path: "C:\\DIR\\FILE.TXT",
      error: 'Cannot find file:\n"FILE.TXT"',
    });
    expect(byName("something_weird")[0]).toMatchObject({
      value: Number.POSITIVE_INFINITY,
      timestampMs: -3982045,
    });
    expect(byName("trailing_comma")[0]).toMatchObject({ labels: { a: "1" }, value: 1 });
    expect(byName("spaces_in_labels")[0]?.labels).toEqual({ a: "x y", b: "}" });
    expect(byName("nan_value")[0]?.value).toBeNaN();
    expect(byName("neg_inf")[0]?.value).toBe(Number.NEGATIVE_INFINITY);
    expect(byName("colon:name")[0]?.value).toBe(5);
    expect(byName("exemplar_counter_total")[0]).toMatchObject({ value: 17, timestampMs: null });
  });

  it("skips bad lines with their line numbers and keeps the rest", () => {
    const text = [
      "good 1",
      'unterminated{a="x} 1',
      "no_value",
      "bad_value abc",
      "hex_value 0x10",
      'dup{a="1",a="2"} 1',
      "bad_ts 1 12.5",
      "extra 1 2 3",
      "1starts_with_digit 1",
      'missing_eq{a"1"} 1',
      "also_good 2",
    ].join("\n");
    const parsed = parsePrometheusText(text);
    expect(parsed.samples.map((s) => s.name)).toEqual(["good", "also_good"]);
    expect(parsed.errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(parsed.errors[0]?.reason).toContain("unterminated");
  });

  it("parses values the way Prometheus does", () => {
    expect(parsePrometheusValue("1.0")).toBe(1);
    expect(parsePrometheusValue("3.0E-5")).toBe(0.00003);
    expect(parsePrometheusValue("+Inf")).toBe(Number.POSITIVE_INFINITY);
    expect(parsePrometheusValue("Infinity")).toBe(Number.POSITIVE_INFINITY);
    expect(parsePrometheusValue("-inf")).toBe(Number.NEGATIVE_INFINITY);
    expect(parsePrometheusValue("nan")).toBeNaN();
    expect(parsePrometheusValue(".5")).toBe(0.5);
    expect(parsePrometheusValue("")).toBeNull();
    expect(parsePrometheusValue("1_000")).toBeNull();
  });
});

describe("metricsFromPrometheus", () => {
  it("reads a Strimzi JMX exporter scrape", () => {
    const { samples, errors } = parsePrometheusText(
      jmxExporterScrape({ leader: "http://10.0.0.5:8083/", epoch: 7, assignedTasks: 3 }),
    );
    expect(errors).toEqual([]);
    expect(metricsFromPrometheus(samples)).toEqual({
      protocol: "sessioned",
      leaderUrl: "http://10.0.0.5:8083/",
      epoch: 7,
      rebalancing: false,
      completedRebalances: 12,
      timeSinceLastRebalanceMs: 183204,
      connectorCount: 1,
      taskCount: 3,
      assignedConnectors: 1,
      assignedTasks: 3,
      startTimeMs: null,
      taskFlow: null,
      jvm: null,
    });
  });

  it("gives null for every missing series, never a guess", () => {
    const { samples } = parsePrometheusText(
      [
        "kafka_connect_worker_rebalance_rebalancing 1.0",
        'kafka_connect_coordinator_assigned_tasks{clientid="connect-1"} 4',
        'kafka_connect_worker_connector_running_task_count{connector="a"} 2',
      ].join("\n"),
    );
    expect(metricsFromPrometheus(samples)).toEqual({
      protocol: null,
      leaderUrl: null,
      epoch: null,
      rebalancing: true,
      completedRebalances: null,
      timeSinceLastRebalanceMs: null,
      connectorCount: null,
      taskCount: null,
      assignedConnectors: null,
      assignedTasks: 4,
      startTimeMs: null,
      taskFlow: null,
      jvm: null,
    });
    expect(metricsFromPrometheus([])).toEqual({
      protocol: null,
      leaderUrl: null,
      epoch: null,
      rebalancing: null,
      completedRebalances: null,
      timeSinceLastRebalanceMs: null,
      connectorCount: null,
      taskCount: null,
      assignedConnectors: null,
      assignedTasks: null,
      startTimeMs: null,
      taskFlow: null,
      jvm: null,
    });
  });

  it("keeps +Inf before the first rebalance, drops NaN, and refuses ambiguous series", () => {
    const { samples } = parsePrometheusText(
      [
        "kafka_connect_worker_rebalance_time_since_last_rebalance_ms +Inf",
        "kafka_connect_worker_rebalance_epoch NaN",
        'kafka_connect_coordinator_assigned_tasks{clientid="a"} 4',
        'kafka_connect_coordinator_assigned_tasks{clientid="b"} 5',
        'kafka_connect_coordinator_assigned_connectors{clientid="a"} 2',
        'kafka_connect_coordinator_assigned_connectors{clientid="b"} 2',
        'kafka_connect_worker_rebalance_leader_name{leader_name="http://a:8083/"} 1',
        'kafka_connect_worker_rebalance_leader_name{leader_name="http://b:8083/"} 1',
        'kafka_connect_worker_rebalance_connect_protocol{connect_protocol="COMPATIBLE"} 1',
        'kafka_connect_worker_rebalance_connect_protocol{connect_protocol="EAGER"} 0',
      ].join("\n"),
    );
    const m = metricsFromPrometheus(samples);
    expect(m.timeSinceLastRebalanceMs).toBe(Number.POSITIVE_INFINITY);
    expect(m.epoch).toBeNull();
    expect(m.assignedTasks).toBeNull();
    expect(m.assignedConnectors).toBe(2);
    expect(m.leaderUrl).toBeNull();
    expect(m.protocol).toBe("compatible");
  });

  it("maps Kafka's protocol names and treats an empty leader as unknown", () => {
    expect(protocolFromMetric("EAGER")).toBe("eager");
    expect(protocolFromMetric("default")).toBe("eager");
    expect(protocolFromMetric("Sessioned")).toBe("sessioned");
    expect(protocolFromMetric("FUTURE")).toBeNull();
    const { samples } = parsePrometheusText('kafka_connect_worker_rebalance_leader_name{leader_name=""} 1');
    expect(metricsFromPrometheus(samples).leaderUrl).toBeNull();
  });
});
