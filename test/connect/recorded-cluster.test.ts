import { afterEach, describe, expect, it } from "vitest";
import type { ClusterReader } from "../../src/connect/cluster-reader.js";
import { createHttpClusterReader } from "../../src/connect/http-cluster-reader.js";
import {
  type RecordedCluster,
  recordedFiles,
  recordedWorker,
  startRecordedCluster,
} from "./recorded-cluster.js";

/** The real reader against the answers of a real 3.9.1/4.1.1 cluster (test/fixtures/connect/cluster.json). */
const open: { cluster: RecordedCluster; reader: ClusterReader }[] = [];

async function readRecorded(options: { crashed?: readonly string[] } = {}) {
  const cluster = await startRecordedCluster();
  for (const name of options.crashed ?? []) await cluster.crash(name);
  let httpCalls = 0;
  const reader = createHttpClusterReader({
    cluster: "lab",
    workers: cluster.endpoints,
    timeoutMs: 2_000,
    retries: 0,
    now: () => 1_000,
    onHttpAttempt: () => {
      httpCalls += 1;
    },
  });
  open.push({ cluster, reader });
  return { cluster, snapshot: await reader.read(), httpCalls };
}

afterEach(async () => {
  for (const { cluster, reader } of open.splice(0)) {
    await reader.close();
    await cluster.close();
  }
});

/** What the recorded statuses say about one worker, by its recorded worker id. */
function runningOn(workerId: string): string[] {
  const expand = JSON.parse(recordedFiles("4.1.1").expand) as Record<
    string,
    { status: { tasks: { id: number; state: string; worker_id: string }[] } }
  >;
  return Object.entries(expand).flatMap(([name, e]) =>
    e.status.tasks
      .filter((t) => t.state === "RUNNING" && t.worker_id === workerId)
      .map((t) => `${name}/${t.id}`),
  );
}

describe("the HTTP cluster reader on a real Kafka Connect 3.9.1 + 4.1.1 cluster (recorded answers)", () => {
  it("reads versions, /health, every connector and task, and the workers' metrics in one read", async () => {
    const { cluster, snapshot, httpCalls } = await readRecorded();
    expect(snapshot.connectorsError).toBeNull();
    expect(snapshot.workers.map((w) => [w.name, w.reachable, w.version, w.health])).toEqual([
      ["worker-1", true, "3.9.1", "healthy"],
      ["worker-2", true, "4.1.1", "healthy"],
      ["worker-3", true, "4.1.1", "healthy"],
    ]);
    expect(
      snapshot.connectors?.map((c) => [c.name, c.type, c.state, c.taskCount, c.config["tasks.max"]]),
    ).toEqual([
      ["conn-01", "source", "RUNNING", 2, "2"],
      ["conn-02", "source", "RUNNING", 2, "2"],
    ]);
    // worker_id is the advertised host:port of the worker running the task: one of ours, for every task.
    const ids = new Set(snapshot.workers.map((w) => w.workerId));
    for (const c of snapshot.connectors ?? []) {
      expect(ids.has(c.workerId ?? "")).toBe(true);
      for (const t of c.tasks) {
        expect(t).toMatchObject({ state: "RUNNING", trace: null });
        expect(ids.has(t.workerId ?? "")).toBe(true);
      }
    }
    // 1 cluster-wide call, GET / and /health per worker (all ≥3.9), /metrics of the two recorded workers.
    expect(httpCalls).toBe(1 + 3 * 2 + 2);
    expect(snapshot.workers.find((w) => w.name === "worker-2")?.metrics).toBeNull();
    for (const name of ["worker-1", "worker-3"]) {
      const w = snapshot.workers.find((x) => x.name === name);
      const tasks = runningOn(recordedWorker(name).workerId);
      expect(w?.metrics, name).toMatchObject({
        protocol: "sessioned",
        // leader-name is the leader's REST URL with a trailing slash.
        leaderUrl: `${cluster.urlOf("worker-1")}/`,
        rebalancing: false,
        // What the group assigned to the member is what REST says runs there.
        assignedTasks: tasks.length,
        taskCount: tasks.length,
      });
      expect(w?.metrics?.startTimeMs, name).toBeGreaterThan(Date.UTC(2024, 0, 1));
    }
    const epochs = snapshot.workers.flatMap((w) => (w.metrics ? [w.metrics.epoch] : []));
    expect(new Set(epochs).size).toBe(1);
  });

  it("a crashed worker: unreachable, while the others' statuses still say RUNNING on it", async () => {
    const { cluster, snapshot } = await readRecorded({ crashed: ["worker-3"] });
    expect(snapshot.workers.map((w) => [w.name, w.reachable])).toEqual([
      ["worker-1", true],
      ["worker-2", true],
      ["worker-3", false],
    ]);
    const onDead = (snapshot.connectors ?? []).flatMap((c) =>
      c.tasks
        .filter((t) => t.workerId === cluster.idOf("worker-3"))
        .map((t) => `${c.name}/${t.id}:${t.state}`),
    );
    expect(onDead).toEqual(runningOn(recordedWorker("worker-3").workerId).map((t) => `${t}:RUNNING`));
    expect(onDead.length).toBeGreaterThan(0);
  });

  it("4.1 adds a connector/task `version` to statuses; the reader ignores it", async () => {
    const raw = JSON.parse(recordedFiles("4.1.1").status) as { tasks: Record<string, unknown>[] };
    expect(raw.tasks.every((t) => "version" in t)).toBe(true);
    const old = JSON.parse(recordedFiles("3.9.1").status) as { tasks: Record<string, unknown>[] };
    expect(old.tasks.some((t) => "version" in t)).toBe(false);
    const { snapshot } = await readRecorded();
    expect(Object.keys(snapshot.connectors?.[0]?.tasks[0] ?? {}).sort()).toEqual([
      "id",
      "state",
      "trace",
      "workerId",
    ]);
  });
});
