import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { expandedConnectors, REBALANCE_ERROR, STARTING } from "./connect-fixtures.js";
import {
  attempts,
  callsOfOneRead,
  closeFakeWorkers,
  cluster,
  connectorCallsOf,
  endpoints,
  reader,
  threeWorkers,
} from "./fake-connect-workers.js";
import { memoryStream, sendJson } from "./loopback-server.js";

afterEach(closeFakeWorkers);

describe("HTTP cluster reader", () => {
  it("reads a 3-worker 3.7 cluster with one cluster-wide call and two calls per worker", async () => {
    const ws = await threeWorkers();
    const r = reader(endpoints(ws), { declared: { exactlyOnceSourceSupport: "enabled" } });
    const snap = await r.read();
    expect(snap.cluster).toBe("prod");
    expect(snap.readAt).toBe(1_005);
    expect(snap.connectorsError).toBeNull();
    expect(snap.connectors?.map((c) => [c.name, c.taskCount, c.tasks.length])).toEqual([
      ["cdc-source", 1, 1],
      ["orders-sink", 2, 2],
    ]);
    expect(snap.workers.map((w) => [w.name, w.reachable, w.version, w.health, w.error])).toEqual([
      ["connect-0", true, "3.7.1", "unsupported", null],
      ["connect-1", true, "3.7.1", "unsupported", null],
      ["connect-2", true, "3.7.1", "unsupported", null],
    ]);
    expect(snap.workers[1]).toMatchObject({
      workerId: cluster.ids[1],
      exactlyOnceSourceSupport: "enabled",
      metrics: {
        protocol: "sessioned",
        leaderUrl: `${ws[0]?.url}/`,
        epoch: 7,
        assignedTasks: 1,
        rebalancing: false,
      },
    });
    expect(attempts()).toBe(7);
    expect(ws.reduce((n, w) => n + w.requests.length, 0)).toBe(7);
    expect(connectorCallsOf(ws)).toEqual([1, 0, 0]);
    expect(ws.every((w) => !w.requests.some((q) => q.path === "/health"))).toBe(true);

    expect(await callsOfOneRead(r)).toBe(7);
    expect(attempts()).toBe(14);
  });

  it("reads /health on 3.9 workers: three calls per worker", async () => {
    const ws = await threeWorkers({ version: "3.9.0" });
    const w2 = ws[2];
    if (w2) w2.state.health = { status: 503, body: STARTING };
    const r = reader(endpoints(ws));
    const snap = await r.read();
    expect(snap.workers.map((w) => w.health)).toEqual(["healthy", "healthy", "starting"]);
    expect(attempts()).toBe(1 + 3 * 3);
  });

  it("retries the cluster-wide call through a rebalance (409 then 200)", async () => {
    const ws = await threeWorkers({
      connectors: (res, i) =>
        i === 0 ? sendJson(res, 409, REBALANCE_ERROR) : sendJson(res, 200, expandedConnectors(cluster.ids)),
    });
    const r = reader(endpoints(ws));
    const snap = await r.read();
    expect(snap.connectors).toHaveLength(2);
    expect(attempts()).toBe(8);
  });

  it("reports a cluster-wide call that keeps failing with 500 in connectorsError", async () => {
    const ws = await threeWorkers({
      connectors: (res) => sendJson(res, 500, { error_code: 500, message: "boom" }),
    });
    const r = reader(endpoints(ws), { retries: 1 });
    const snap = await r.read();
    expect(snap.connectors).toBeNull();
    expect(snap.connectorsError).toContain("HTTP 500");
    expect(snap.workers.every((w) => w.reachable)).toBe(true);
    expect(connectorCallsOf(ws)).toEqual([2, 0, 0]);
  });

  it("skips and logs a connector that disappeared between the two lookups", async () => {
    const ws = await threeWorkers({
      connectors: (res) =>
        sendJson(res, 200, {
          ...expandedConnectors(cluster.ids),
          deleted: { info: { name: "deleted", config: {}, tasks: [] } },
        }),
    });
    const stream = memoryStream();
    const r = reader(endpoints(ws), { logger: pino({ level: "warn" }, stream) });
    const snap = await r.read();
    expect(snap.connectors?.map((c) => c.name)).toEqual(["cdc-source", "orders-sink"]);
    expect(stream.text()).toContain('"connector":"deleted"');
    expect(stream.text()).toContain("connector skipped");
  });

  it("gives null metrics for missing series, an unreadable endpoint, or no metrics URL", async () => {
    const ws = await threeWorkers();
    const [w0, w1] = ws;
    if (w0) w0.state.metrics = "kafka_connect_worker_task_count 3\ngarbage{ 1\n";
    if (w1) w1.state.metrics = null;
    const workers = endpoints(ws);
    const last = workers[2];
    if (last) workers[2] = { ...last, metricsUrl: null };
    const r = reader(workers);
    const snap = await r.read();
    expect(snap.workers[0]?.metrics).toMatchObject({
      taskCount: 3,
      assignedTasks: null,
      leaderUrl: null,
      epoch: null,
    });
    expect(snap.workers[1]?.metrics).toBeNull();
    expect(snap.workers[1]?.reachable).toBe(true);
    expect(snap.workers[2]?.metrics).toBeNull();
    expect(attempts()).toBe(1 + 3 + 2);
  });
});
