import { describe, expect, it } from "vitest";
import { labCommand } from "../../src/cli/commands/lab.js";
import { runCli } from "../../src/cli/main.js";
import { supportsExactlyOnceSource } from "../../src/lab/lab-jars.js";
import { labConnectorConfig } from "../../src/lab/lab-rest.js";
import { type WorkerSpec, workerProperties } from "../../src/lab/lab-worker.js";
import { startLab } from "../../src/lab/start-lab.js";
import { captureIo } from "../support/capture-io.js";

const spec: WorkerSpec = {
  name: "worker-1",
  host: "127.0.0.1",
  restPort: 28_001,
  advertisedPort: null,
  metricsPort: 28_002,
  groupId: "connect-roll-lab",
  bootstrap: "127.0.0.1:28_000",
  delayMs: 30_000,
  sessionTimeoutMs: 10_000,
  heartbeatMs: 3_000,
  connectProtocol: null,
  exactlyOnceSourceSupport: null,
};

const props = (s: WorkerSpec) =>
  Object.fromEntries(
    workerProperties(s)
      .trim()
      .split("\n")
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );

const settings = {
  throughput: 10,
  taskStartMs: 0,
  controlDir: "/tmp/control",
  topics: ["conn-01", "conn-02"],
};

describe("the lab's exactly-once configuration", () => {
  it("a worker gets exactly.once.source.support only when it is set, and always lets connectors override client configs", () => {
    expect(props(spec)["exactly.once.source.support"]).toBeUndefined();
    expect(props(spec)["connector.client.config.override.policy"]).toBe("All");
    for (const s of ["disabled", "preparing", "enabled"] as const)
      expect(props({ ...spec, exactlyOnceSourceSupport: s })["exactly.once.source.support"]).toBe(s);
  });

  it("an exactly-once source is the connector declaring support, required, with its transaction boundary", () => {
    const poll = labConnectorConfig("conn-01", 2, {
      ...settings,
      kind: "source",
      exactlyOnce: { boundary: "poll", intervalMs: 1_000 },
    });
    expect(poll).toMatchObject({
      "connector.class": "connectroll.lab.LabExactlyOnceSourceConnector",
      "exactly.once.support": "required",
      "transaction.boundary": "poll",
      topic: "conn-01",
    });
    expect(poll["transaction.boundary.interval.ms"]).toBeUndefined();
    const interval = labConnectorConfig("conn-01", 2, {
      ...settings,
      kind: "source",
      exactlyOnce: { boundary: "interval", intervalMs: 1_500 },
    });
    expect(interval).toMatchObject({
      "transaction.boundary": "interval",
      "transaction.boundary.interval.ms": "1500",
    });
  });

  it("an exactly-once sink reads read_committed; without exactly-once neither side is transactional", () => {
    const sink = labConnectorConfig("sink-01", 2, {
      ...settings,
      kind: "sink",
      exactlyOnce: { boundary: "poll", intervalMs: 1_000 },
    });
    expect(sink).toMatchObject({
      "connector.class": "connectroll.lab.LabSinkConnector",
      "consumer.override.isolation.level": "read_committed",
      topics: "conn-01,conn-02",
    });
    const plainSource = labConnectorConfig("conn-01", 2, { ...settings, kind: "source" });
    const plainSink = labConnectorConfig("sink-01", 2, { ...settings, kind: "sink", exactlyOnce: null });
    expect(plainSource["connector.class"]).toBe("connectroll.lab.LabSourceConnector");
    expect(plainSource["exactly.once.support"]).toBeUndefined();
    expect(plainSource["transaction.boundary"]).toBeUndefined();
    expect(plainSink["consumer.override.isolation.level"]).toBeUndefined();
  });

  it("exactly-once source needs Connect 3.3+", async () => {
    expect(["3.2.3", "2.8.2"].map(supportsExactlyOnceSource)).toEqual([false, false]);
    expect(["3.3.0", "3.9.1", "4.1.1", "v4.4.0"].map(supportsExactlyOnceSource)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    await expect(startLab({ kafka: "3.2.3", exactlyOnce: true, env: {} })).rejects.toThrow(
      "exactly-once source needs Connect 3.3 or later, not 3.2.3",
    );
    await expect(
      startLab({ kafka: "3.9.1", workers: 2, exactlyOnceSupport: { "worker-3": "preparing" }, env: {} }),
    ).rejects.toThrow("no worker worker-3");
  });

  it("bad flags: one line each, exit 2, before anything starts", async () => {
    for (const [args, text] of [
      [["--exactly-once-support", "worker-2=on"], "use disabled, preparing or enabled"],
      [["--exactly-once-support", "worker-2"], "takes NAME=VALUE (e.g. worker-1=preparing)"],
      [["--transaction-boundary", "connector"], "use poll or interval"],
    ] as const) {
      const io = captureIo({ PATH: "/nonexistent" });
      expect(await runCli({ version: "0.0.0", commands: [labCommand] }, ["lab", ...args], io)).toBe(2);
      expect(io.err().trim().split("\n")).toEqual([expect.stringContaining(text)]);
    }
  });
});
