import { request } from "undici";
import { describe, expect, it } from "vitest";
import { parsePrometheusText } from "../../src/connect/prometheus.js";
import { taskFlowFromPrometheus } from "../../src/connect/task-flow-metrics.js";
import type { TaskFlowReading } from "../../src/core/snapshot.js";
import { renderWorkerMetrics } from "../../src/sim/prometheus-metrics.js";
import { createSimCluster } from "../../src/sim/sim-cluster.js";
import { resolveSimOptions } from "../../src/sim/sim-options.js";
import { createTaskFlow } from "../../src/sim/task-flow.js";
import { followers } from "./support/control-client.js";
import { useSims } from "./support/sim-fixture.js";

const sim = useSims({
  workers: 3,
  connectorSpecs: [
    { name: "orders", type: "source", tasksMax: 2 },
    { name: "orders-sink", type: "sink", tasksMax: 2 },
    { name: "quiet", type: "source", tasksMax: 1, config: { "sim.throughput": "0" } },
  ],
  delayMs: 20_000,
  restartMs: 2_000,
  taskStartMs: 0,
  throughput: 10,
  seed: 3,
});

/** Every worker's per-task readings, merged by task key, as the reader would see them. */
async function readings(
  workers: readonly { metricsUrl: string }[],
): Promise<Record<string, TaskFlowReading>> {
  const out: Record<string, TaskFlowReading> = {};
  for (const w of workers) {
    const text = await (await request(w.metricsUrl)).body.text();
    Object.assign(out, taskFlowFromPrometheus(parsePrometheusText(text).samples) ?? {});
  }
  return out;
}

describe("the simulator's per-task data flow", () => {
  it("counts each task's records since it started, at its throughput; an idle connector moves nothing", async () => {
    const { s, c } = await sim();
    await c.advance(10_000);
    const r = await readings(s.workers);
    expect(r["orders/0"]).toEqual({ kind: "source", records: 100, lag: null, fetches: null, failures: 0 });
    expect(r["orders-sink/1"]).toEqual({ kind: "sink", records: 100, lag: 0, fetches: 20, failures: 0 });
    expect(r["quiet/0"]?.records).toBe(0);
    expect((await c.state()).dataFlow.perTask["quiet/0"]).toBe(0);
  });

  it("exports every RUNNING task's counters on the worker that runs it; with --connectors N every second connector is a sink, under the sink series", () => {
    const cluster = createSimCluster(
      resolveSimOptions({ workers: 4, connectors: 3, tasksPerConnector: 2, virtualTime: true }),
    );
    try {
      cluster.advance(5_000);
      const state = cluster.state();
      const exported: string[] = [];
      for (const w of state.workers) {
        const view = cluster.connect.worker(w.name);
        if (!view) continue;
        const text = renderWorkerMetrics(view, `connect-${w.name}`);
        const flow = taskFlowFromPrometheus(parsePrometheusText(text).samples) ?? {};
        for (const [task, reading] of Object.entries(flow)) {
          expect(reading.kind, task).toBe(task.startsWith("conn-02/") ? "sink" : "source");
          expect(state.tasks.find((t) => t.id === task)?.workerId, task).toBe(w.workerId);
          exported.push(task);
        }
      }
      expect(exported.sort()).toEqual(state.tasks.filter((t) => t.state === "RUNNING").map((t) => t.id));
      expect(exported).toHaveLength(6);
    } finally {
      cluster.close();
    }
  });

  it("starts a bounced task's counters from zero, and its ground-truth gap is the time it moved nothing", async () => {
    const { s, c } = await sim();
    await c.advance(10_000);
    const st = await c.state();
    const worker = followers(st).find((w) =>
      st.workers.find((x) => x.name === w)?.tasks.includes("orders/0"),
    );
    const name = worker ?? st.workers.find((w) => w.tasks.includes("orders/0"))?.name;
    await c.post(`/sim/workers/${name}/restart`);
    await c.advance(25_000);
    const after = await c.state();
    const r = await readings(s.workers);
    const gap = after.dataFlow.perTask["orders/0"] ?? 0;
    expect(gap).toBeGreaterThan(15_000);
    // Since it started again: the 25 s since the restart, minus the gap.
    expect(r["orders/0"]?.records).toBe(Math.floor(((25_000 - gap) / 1000) * 10));
  });

  it("a stalled task stays RUNNING and moves nothing until resumed; a stalled sink stops fetching, its lag frozen", async () => {
    const { s, c } = await sim();
    await c.advance(5_000);
    expect((await c.post("/sim/tasks/orders/0/stall")).status).toBe(200);
    expect((await c.post("/sim/tasks/orders-sink/1/stall?ms=10000")).status).toBe(200);
    const before = await readings(s.workers);
    await c.advance(8_000);
    const during = await readings(s.workers);
    const st = await c.state();
    expect(st.tasks.find((t) => t.id === "orders/0")?.state).toBe("RUNNING");
    expect(st.dataFlow.stalled).toEqual(["orders/0", "orders-sink/1"]);
    expect(during["orders/0"]?.records).toBe(before["orders/0"]?.records);
    // As on a real cluster: a consumer that does not fetch does not update its lag.
    expect(during["orders-sink/1"]).toMatchObject({
      records: before["orders-sink/1"]?.records,
      lag: 0,
      fetches: before["orders-sink/1"]?.fetches,
    });
    await c.advance(2_500);
    const resumed = await readings(s.workers);
    expect(resumed["orders-sink/1"]?.lag).toBeGreaterThan(50);
    expect(resumed["orders-sink/1"]?.fetches).toBeGreaterThan(during["orders-sink/1"]?.fetches ?? 0);
    await c.advance(7_500);
    const later = await readings(s.workers);
    expect(later["orders/0"]?.records).toBe(before["orders/0"]?.records);
    expect(later["orders-sink/1"]?.lag).toBe(0);
    expect((await c.state()).dataFlow.stalled).toEqual(["orders/0"]);
    expect((await c.post("/sim/tasks/orders/0/resume")).status).toBe(200);
    await c.advance(1_000);
    expect((await readings(s.workers))["orders/0"]?.records).toBe((before["orders/0"]?.records ?? 0) + 10);
  });

  it("raises a task's record failures on request; unknown tasks are 404, bad counts 400", async () => {
    const { s, c } = await sim();
    await c.advance(1_000);
    expect((await c.post("/sim/tasks/orders/1/errors?count=3")).status).toBe(200);
    expect((await readings(s.workers))["orders/1"]?.failures).toBe(3);
    expect((await c.post("/sim/tasks/orders/9/stall")).status).toBe(404);
    expect((await c.post("/sim/tasks/nope/0/resume")).status).toBe(404);
    expect((await c.post("/sim/tasks/orders/1/errors?count=0")).status).toBe(400);
    expect((await c.post("/sim/tasks/orders/x/stall")).status).toBe(400);
  });
});

describe("createTaskFlow", () => {
  it("ends a timed stall by itself and keeps a resumed-from-pause instance's counters", () => {
    const f = createTaskFlow();
    f.running("a/0", "source", 10, 0, true);
    f.stall("a/0", 2_500, 1_000);
    expect(f.sample("a/0", 3_000)?.records).toBe(15);
    f.halted("a/0", 3_000, false);
    f.running("a/0", "source", 10, 4_000, false);
    expect(f.sample("a/0", 5_000)?.records).toBe(25);
    expect(f.groundTruth(5_000).perTask["a/0"]).toBe(1_500);
    f.halted("a/0", 5_000, true);
    expect(f.sample("a/0", 6_000)).toBeNull();
  });
});
