import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../../src/connect/http-client.js";
import { createHttpClusterReader } from "../../src/connect/http-cluster-reader.js";
import { WORKER_METRIC_NAMES } from "../../src/connect/prometheus.js";
import { createPrometheusMetricsSource } from "../../src/connect/prometheus-metrics-source.js";
import { TASK_FLOW_METRICS } from "../../src/connect/task-flow-metrics.js";
import type { WorkerEndpoint } from "../../src/connect/worker-endpoint.js";
import { type WorkerMetrics, workerIdOf } from "../../src/core/snapshot.js";
import { expandedConnectors, serverInfo } from "./connect-fixtures.js";
import { type LoopbackServer, refusedUrl, sendJson, startLoopbackServer } from "./loopback-server.js";
import { createMemoryMetricsSource } from "./memory-metrics-source.js";
import { SETTLED_WORKER, workerMetricsSourceContract } from "./worker-metrics-source-contract.js";

/** What a JMX exporter with Strimzi's rules would serve for these metrics (a null one: no series). */
function prometheusTextOf(m: WorkerMetrics): string {
  const n = WORKER_METRIC_NAMES;
  const lines = ["# TYPE jmx_scrape_duration_seconds gauge", "jmx_scrape_duration_seconds 0.021843"];
  const series = (name: string, value: number | null | undefined, labels = "") => {
    if (value !== null && value !== undefined) lines.push(`${name}${labels} ${value}`);
  };
  if (m.protocol !== null) series(n.protocol, 1, `{connect_protocol="${m.protocol.toUpperCase()}",}`);
  if (m.leaderUrl !== null) series(n.leaderName, 1, `{leader_name="${m.leaderUrl}",}`);
  series(n.epoch, m.epoch);
  series(n.rebalancing, m.rebalancing === null ? null : m.rebalancing ? 1 : 0);
  series(n.completedRebalances, m.completedRebalances);
  series(n.timeSinceLastRebalanceMs, m.timeSinceLastRebalanceMs);
  series(n.connectorCount, m.connectorCount);
  series(n.taskCount, m.taskCount);
  series(n.assignedConnectors, m.assignedConnectors, `{clientid="connect-1",}`);
  series(n.assignedTasks, m.assignedTasks, `{clientid="connect-1",}`);
  series(n.startTimeMs, m.startTimeMs, `{client_id="connect-1",}`);
  const t = TASK_FLOW_METRICS;
  for (const [key, flow] of Object.entries(m.taskFlow ?? {})) {
    const [connector, task] = key.split("/");
    const labels = `{connector="${connector}",task="${task}",}`;
    const client = `{clientid="connector-consumer-${connector}-${task}",`;
    series(flow.kind === "source" ? t.sourceWritten.name : t.sinkRead.name, flow.records, labels);
    series(t.recordFailures.name, flow.failures, labels);
    series(t.dlqFailures.name, 0, labels);
    series(t.consumerLag.name, flow.lag, `${client}partition="0",topic="orders",}`);
    series(t.consumerFetches.name, flow.fetches, `${client}}`);
  }
  if (m.jvm) {
    series("jvm_memory_used_bytes", m.jvm.heapUsedBytes, `{area="heap",}`);
    series("jvm_memory_used_bytes", 52_068_384, `{area="nonheap",}`);
    series("jvm_memory_max_bytes", m.jvm.heapMaxBytes, `{area="heap",}`);
    if (m.jvm.heapAfterGcBytes !== null) {
      series("jvm_memory_pool_collection_used_bytes", 0, `{pool="Eden Space",}`);
      series("jvm_memory_pool_collection_used_bytes", m.jvm.heapAfterGcBytes, `{pool="Tenured Gen",}`);
    }
    if (m.jvm.gcSeconds !== null) {
      // Two collectors, as a JVM has: the reader sums them.
      series("jvm_gc_collection_seconds_sum", m.jvm.gcSeconds - 0.062, `{gc="Copy",}`);
      series("jvm_gc_collection_seconds_sum", 0.062, `{gc="MarkSweepCompact",}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

workerMetricsSourceContract("Prometheus (JMX exporter scrape over HTTP)", async () => {
  const servers: LoopbackServer[] = [];
  const http = createHttpClient({ timeoutMs: 2_000, retries: 0 });
  const worker = (url: string, metricsUrl: string | null): WorkerEndpoint => ({
    name: "connect-0",
    url,
    metricsUrl,
  });
  return {
    source: createPrometheusMetricsSource({ http }),
    async withMetrics(metrics) {
      const text = prometheusTextOf(metrics);
      const server = await startLoopbackServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
        res.end(text);
      });
      servers.push(server);
      return worker(server.url, `${server.url}/metrics`);
    },
    withoutEndpoint: async () => worker("http://127.0.0.1:8083", null),
    async unreachable() {
      const down = await refusedUrl();
      return worker(down, `${down}/metrics`);
    },
    async close() {
      await http.close();
      await Promise.all(servers.map((s) => s.close()));
    },
  };
});

workerMetricsSourceContract("in memory (the fake)", async () => {
  const byWorker = new Map<string, WorkerMetrics>();
  let n = 0;
  const worker = (metricsUrl: string | null): WorkerEndpoint => {
    n += 1;
    return { name: `connect-${n}`, url: `http://10.0.0.${n}:8083`, metricsUrl };
  };
  return {
    source: createMemoryMetricsSource(byWorker),
    async withMetrics(metrics) {
      const w = worker("memory:metrics");
      byWorker.set(w.name, metrics);
      return w;
    },
    withoutEndpoint: async () => worker(null),
    unreachable: async () => worker("memory:metrics"),
    close: async () => undefined,
  };
});

describe("the HTTP cluster reader with another metrics source", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  it("takes every worker's metrics from the source it is given, in reads and in probes", async () => {
    const server = await startLoopbackServer((req, res) => {
      if (req.url === "/") return sendJson(res, 200, serverInfo("3.7.1"));
      return sendJson(res, 200, expandedConnectors([workerIdOf(server.url)]));
    });
    open.push(server);
    const source = createMemoryMetricsSource(new Map([["connect-0", SETTLED_WORKER]]));
    const reader = createHttpClusterReader({
      cluster: "prod",
      workers: [{ name: "connect-0", url: server.url, metricsUrl: "memory:metrics" }],
      timeoutMs: 2_000,
      retries: 0,
      now: () => 1_000,
      metricsSource: () => source,
    });
    open.push(reader);

    const snap = await reader.read();
    expect(snap.workers[0]).toMatchObject({ name: "connect-0", reachable: true, metrics: SETTLED_WORKER });
    expect(await reader.probe?.("connect-0", { metrics: true })).toMatchObject({ metrics: SETTLED_WORKER });
    expect(await reader.probe?.("connect-0", { metrics: false })).toMatchObject({ metrics: null });
    // The source was asked by the read and the probe that wanted metrics; no /metrics went over HTTP.
    expect(source.asked).toEqual(["connect-0", "connect-0"]);
    expect(server.requests.map((q) => q.path)).not.toContain("/metrics");
  });
});
