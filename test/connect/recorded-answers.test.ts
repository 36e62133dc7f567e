import { describe, expect, it } from "vitest";
import {
  metricsFromPrometheus,
  parsePrometheusText,
  WORKER_METRIC_NAMES,
} from "../../src/connect/prometheus.js";
import type { PrometheusSample } from "../../src/connect/prometheus-sample.js";
import {
  connectorStateInfoSchema,
  parseExpandedConnectors,
  parseHealth,
  parseServerInfo,
} from "../../src/connect/schemas.js";
import {
  RECORDED_CLUSTER,
  RECORDED_VERSIONS,
  type RecordedVersion,
  recordedFiles,
} from "./recorded-cluster.js";

/** Our parsers on what real Kafka Connect workers answered (test/fixtures/connect/, recorded from the lab). */
const recorderOf = (version: RecordedVersion) => {
  const w = RECORDED_CLUSTER.workers.find((x) => x.version === version && x.recorded);
  if (!w) throw new Error(`no recorded worker of ${version} in cluster.json`);
  return w;
};

function runningTaskCount(version: RecordedVersion, workerId: string): number {
  const { connectors } = parseExpandedConnectors(JSON.parse(recordedFiles(version).expand), "fixture");
  return connectors
    .flatMap((c) => c.status.tasks)
    .filter((t) => t.state === "RUNNING" && t.worker_id === workerId).length;
}

describe("test/fixtures/connect/cluster.json describes the recordings", () => {
  it.each(RECORDED_VERSIONS)("%s: GET / reports the version, the metrics name the worker", (version) => {
    const files = recordedFiles(version);
    expect(parseServerInfo(JSON.parse(files.root), "fixture").version).toBe(version);
    const clientIds = parsePrometheusText(files.metrics)
      .samples.filter((s) => s.name === WORKER_METRIC_NAMES.assignedTasks)
      .map((s) => s.labels.clientid);
    // The lab sets client.id=connect-<name>.
    expect(clientIds).toEqual([`connect-${recorderOf(version).name}`]);
  });

  it("every worker_id in the statuses is a worker of the manifest, and every worker runs something", () => {
    const ids = RECORDED_CLUSTER.workers.map((w) => w.workerId);
    for (const version of RECORDED_VERSIONS) {
      const { connectors, skipped } = parseExpandedConnectors(
        JSON.parse(recordedFiles(version).expand),
        "fixture",
      );
      expect(skipped).toEqual([]);
      const seen = new Set(
        connectors.flatMap((c) => [c.status.connector.worker_id, ...c.status.tasks.map((t) => t.worker_id)]),
      );
      expect([...seen].sort()).toEqual([...ids].sort());
    }
  });
});

describe.each(RECORDED_VERSIONS)("the REST answers of a real %s worker", (version) => {
  const files = recordedFiles(version);

  it("GET /: version, commit and cluster id", () => {
    expect(parseServerInfo(JSON.parse(files.root), "fixture")).toMatchObject({
      version,
      commit: expect.stringMatching(/^[0-9a-f]{16}$/),
      kafka_cluster_id: expect.any(String),
    });
  });

  it("GET /health answers healthy with a message", () => {
    const body = JSON.parse(files.health) as { status: string; message: string };
    expect(body.message).toMatch(/completed startup/);
    expect(parseHealth(body, 200, "fixture")).toBe("healthy");
  });

  it("GET /connectors/{name}/status is the `status` half of the expanded listing", () => {
    const status = connectorStateInfoSchema.parse(JSON.parse(files.status));
    const expanded = parseExpandedConnectors(JSON.parse(files.expand), "fixture").connectors;
    expect(expanded.find((c) => c.name === status.name)?.status).toEqual(status);
    // No trace key at all on a healthy task: the schema's null.
    expect(status.tasks.every((t) => t.trace === null)).toBe(true);
  });

  it("expand=status&expand=info: both halves of every connector, config as strings, task configs", () => {
    const { connectors, skipped } = parseExpandedConnectors(JSON.parse(files.expand), "fixture");
    expect(skipped).toEqual([]);
    expect(connectors.map((c) => [c.name, c.info.type, c.status.type, c.info.tasks.length])).toEqual([
      ["conn-01", "source", "source", 2],
      ["conn-02", "source", "source", 2],
    ]);
  });
});

describe.each(RECORDED_VERSIONS)(
  "the /metrics text of a real %s worker (JMX exporter, our rules)",
  (version) => {
    const text = parsePrometheusText(recordedFiles(version).metrics);
    const series = (name: string): PrometheusSample[] => text.samples.filter((s) => s.name === name);

    it("parses without skipping a line", () => {
      expect(text.errors).toEqual([]);
      expect(text.samples.length).toBeGreaterThan(100);
    });

    it("has every series the reader uses, with the types and labels it expects", () => {
      const n = WORKER_METRIC_NAMES;
      for (const name of Object.values(n)) expect(series(name).length, name).toBe(1);
      expect(text.types.get(n.leaderName)).toBe("untyped");
      expect(text.types.get(n.protocol)).toBe("untyped");
      expect(text.types.get(n.epoch)).toBe("gauge");
      expect(text.types.get(n.completedRebalances)).toBe("counter");
      expect(text.types.get(n.assignedTasks)).toBe("gauge");
      expect(series(n.leaderName)[0]).toMatchObject({
        value: 1,
        labels: { leader_name: expect.any(String) },
      });
      expect(series(n.protocol)[0]).toMatchObject({ value: 1, labels: { connect_protocol: "SESSIONED" } });
      expect(Object.keys(series(n.assignedTasks)[0]?.labels ?? {})).toEqual(["clientid"]);
      expect(Object.keys(series(n.startTimeMs)[0]?.labels ?? {})).toEqual(["clientid"]);
      // The exporter's HELP text names the MBean attribute behind each series.
      expect(text.help.get(n.assignedTasks)).toContain(
        "type=connect-coordinator-metrics,attribute=assigned-tasks",
      );
      expect(text.help.get(n.startTimeMs)).toContain("type=app-info,attribute=start-time-ms");
    });

    it("reads the leader URL, protocol, epoch, assignment and start time", () => {
      const me = recorderOf(version);
      const leader = RECORDED_CLUSTER.workers.find((w) => w.name === "worker-1");
      const m = metricsFromPrometheus(text.samples);
      const tasks = runningTaskCount(version, me.workerId);
      expect(m).toMatchObject({
        protocol: "sessioned",
        leaderUrl: `http://${leader?.workerId}/`,
        rebalancing: false,
        assignedTasks: tasks,
        taskCount: tasks,
      });
      expect(m.epoch).toBeGreaterThan(0);
      // A per-worker counter, not the group's epoch: a worker that joined later has completed fewer.
      expect(m.completedRebalances).toBeGreaterThan(0);
      expect(m.completedRebalances).toBeLessThanOrEqual(m.epoch ?? 0);
      expect(m.timeSinceLastRebalanceMs).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(m.timeSinceLastRebalanceMs)).toBe(true);
      // start-time-ms in epoch milliseconds, exported in exponent notation (1.796119273616E12).
      expect(m.startTimeMs).toBeGreaterThan(Date.UTC(2024, 0, 1));
      expect(Number.isInteger(m.startTimeMs)).toBe(true);
    });

    it("reads the JVM's heap and its time in GC (the exporter agent's default JVM series)", () => {
      const m = metricsFromPrometheus(text.samples);
      const gc = text.samples
        .filter((s) => s.name === "jvm_gc_collection_seconds_sum")
        .reduce((a, s) => a + s.value, 0);
      expect(gc).toBeGreaterThan(0);
      expect(m.jvm?.gcSeconds).toBeCloseTo(gc, 9);
      expect(m.jvm?.heapUsedBytes).toBeGreaterThan(0);
      expect(m.jvm?.heapMaxBytes).toBeGreaterThan(m.jvm?.heapUsedBytes ?? 0);
      // The live heap, after the last collection: the heap pools' collection usage, at most the heap used then.
      expect(m.jvm?.heapAfterGcBytes).toBeGreaterThan(0);
      expect(m.jvm?.heapAfterGcBytes).toBeLessThan(m.jvm?.heapMaxBytes ?? 0);
    });
  },
);

it("the two versions agree on the group: one epoch, one leader", () => {
  const [a, b] = RECORDED_VERSIONS.map((v) =>
    metricsFromPrometheus(parsePrometheusText(recordedFiles(v).metrics).samples),
  );
  expect(a?.epoch).toBe(b?.epoch);
  expect(a?.leaderUrl).toBe(b?.leaderUrl);
});
