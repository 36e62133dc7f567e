import type { ServerResponse } from "node:http";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { ClusterReader } from "../../src/connect/cluster-reader.js";
import {
  createHttpClusterReader,
  type HttpClusterReaderOptions,
} from "../../src/connect/http-cluster-reader.js";
import type { WorkerEndpoint } from "../../src/connect/worker-endpoint.js";
import { workerIdOf } from "../../src/core/snapshot.js";
import {
  expandedConnectors,
  HEALTHY,
  jmxExporterScrape,
  REBALANCE_ERROR,
  STARTING,
  serverInfo,
} from "./connect-fixtures.js";
import {
  type LoopbackServer,
  memoryStream,
  refusedUrl,
  sendJson,
  startLoopbackServer,
} from "./loopback-server.js";

interface FakeWorkerState {
  version: string;
  health: { status: number; body: unknown };
  /** Answer to the cluster-wide call, by call index. */
  connectors: (res: ServerResponse, index: number) => void;
  metrics: string | null;
}

const servers: LoopbackServer[] = [];
const readers: ClusterReader[] = [];
let cluster: { ids: string[] } = { ids: [] };

async function fakeWorker(
  overrides: Partial<FakeWorkerState> = {},
): Promise<LoopbackServer & { state: FakeWorkerState }> {
  const state: FakeWorkerState = {
    version: "3.7.1",
    health: { status: 200, body: HEALTHY },
    connectors: (res) => sendJson(res, 200, expandedConnectors(cluster.ids)),
    metrics: null,
    ...overrides,
  };
  let connectorCalls = 0;
  const server = await startLoopbackServer((req, res) => {
    const path = req.url ?? "/";
    if (path === "/") return sendJson(res, 200, serverInfo(state.version));
    if (path === "/health") return sendJson(res, state.health.status, state.health.body);
    if (path === "/connectors?expand=status&expand=info") return state.connectors(res, connectorCalls++);
    if (path === "/metrics" && state.metrics !== null) {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
      return res.end(state.metrics);
    }
    return sendJson(res, 404, { error_code: 404, message: `HTTP 404 Not Found` });
  });
  servers.push(server);
  return Object.assign(server, { state });
}

async function threeWorkers(overrides: Partial<FakeWorkerState> = {}) {
  const ws = [await fakeWorker(overrides), await fakeWorker(overrides), await fakeWorker(overrides)];
  cluster = { ids: ws.map((w) => workerIdOf(w.url)) };
  ws.forEach((w, i) => {
    w.state.metrics ??= jmxExporterScrape({ leader: `${ws[0]?.url}/`, epoch: 7, assignedTasks: i });
  });
  return ws;
}

function endpoints(ws: readonly { url: string }[], withMetrics = true): WorkerEndpoint[] {
  return ws.map((w, i) => ({
    name: `connect-${i}`,
    url: w.url,
    metricsUrl: withMetrics ? `${w.url}/metrics` : null,
  }));
}

/** HTTP attempts made by the newest reader (its `onHttpAttempt`), retries included. */
let attempts = 0;

function reader(workers: WorkerEndpoint[], options: Partial<HttpClusterReaderOptions> = {}): ClusterReader {
  let t = 1_000;
  attempts = 0;
  const r = createHttpClusterReader({
    cluster: "prod",
    workers,
    // Roomy: on a loaded machine a 300 ms deadline retried calls, and the call counts below count retries.
    timeoutMs: 2_000,
    retries: 2,
    now: () => {
      t += 5;
      return t;
    },
    backoffBaseMs: 5,
    backoffMaxMs: 20,
    sleep: async () => undefined,
    onHttpAttempt: () => {
      attempts += 1;
    },
    ...options,
  });
  readers.push(r);
  return r;
}

/** Reads once and says how many HTTP attempts the read made. */
async function callsOfOneRead(r: ClusterReader): Promise<number> {
  const before = attempts;
  await r.read();
  return attempts - before;
}

const connectorCallsOf = (ws: readonly LoopbackServer[]) =>
  ws.map((w) => w.requests.filter((r) => r.path.startsWith("/connectors")).length);

afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

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
    expect(attempts).toBe(7);
    expect(ws.reduce((n, w) => n + w.requests.length, 0)).toBe(7);
    expect(connectorCallsOf(ws)).toEqual([1, 0, 0]);
    expect(ws.every((w) => !w.requests.some((q) => q.path === "/health"))).toBe(true);

    expect(await callsOfOneRead(r)).toBe(7);
    expect(attempts).toBe(14);
  });

  it("reads /health on 3.9 workers: three calls per worker", async () => {
    const ws = await threeWorkers({ version: "3.9.0" });
    const w2 = ws[2];
    if (w2) w2.state.health = { status: 503, body: STARTING };
    const r = reader(endpoints(ws));
    const snap = await r.read();
    expect(snap.workers.map((w) => w.health)).toEqual(["healthy", "healthy", "starting"]);
    expect(attempts).toBe(1 + 3 * 3);
  });

  it("marks a worker refusing connections unreachable and still reads the cluster from the next one", async () => {
    const down = await refusedUrl();
    const ws = await threeWorkers();
    const workers = [
      { name: "connect-down", url: down, metricsUrl: `${down}/metrics` },
      ...endpoints(ws.slice(1)),
    ];
    const r = reader(workers);
    const snap = await r.read();
    expect(snap.workers[0]).toMatchObject({
      name: "connect-down",
      reachable: false,
      version: null,
      health: "unknown",
      metrics: null,
    });
    expect(snap.workers[0]?.error).toContain("Cannot reach");
    expect(snap.workers.slice(1).every((w) => w.reachable)).toBe(true);
    expect(snap.connectors).toHaveLength(2);
    expect(connectorCallsOf(ws)).toEqual([0, 1, 0]);

    await r.read();
    expect(connectorCallsOf(ws)).toEqual([0, 2, 0]);
  });

  it("reports connectors as unknown when no worker answers, without failing the read", async () => {
    const r = reader(
      [
        { name: "a", url: await refusedUrl() },
        { name: "b", url: await refusedUrl() },
      ],
      { retries: 0 },
    );
    const snap = await r.read();
    expect(snap.connectors).toBeNull();
    expect(snap.connectorsError).toContain("Cannot reach");
    expect(snap.workers.map((w) => w.reachable)).toEqual([false, false]);
  });

  it("gives up on a hanging worker within the timeout", async () => {
    const hanging = await startLoopbackServer(() => undefined);
    servers.push(hanging);
    const ws = await threeWorkers();
    const r = reader([{ name: "stuck", url: hanging.url }, ...endpoints(ws.slice(1))], {
      timeoutMs: 100,
      retries: 0,
    });
    const reading = r.read();
    // The stuck worker is asked and never answers: what ends the read is the reader's own deadline.
    await hanging.received(1);
    const snap = await reading;
    expect(snap.workers[0]?.reachable).toBe(false);
    expect(snap.workers[0]?.error).toContain("No answer");
    expect(snap.workers[0]?.error).toContain("within 100 ms");
    expect(snap.connectors).toHaveLength(2);
  });

  it("retries the cluster-wide call through a rebalance (409 then 200)", async () => {
    const ws = await threeWorkers({
      connectors: (res, i) =>
        i === 0 ? sendJson(res, 409, REBALANCE_ERROR) : sendJson(res, 200, expandedConnectors(cluster.ids)),
    });
    const r = reader(endpoints(ws));
    const snap = await r.read();
    expect(snap.connectors).toHaveLength(2);
    expect(attempts).toBe(8);
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
    expect(attempts).toBe(1 + 3 + 2);
  });

  it("sends basic auth to REST (not to metrics) and never logs or reports the credentials", async () => {
    const ws = await threeWorkers({ connectors: (res) => sendJson(res, 500, REBALANCE_ERROR) });
    const down = await refusedUrl();
    const stream = memoryStream();
    const auth = { username: "roller", password: "pw-Xy9-secret" };
    const r = reader([...endpoints(ws), { name: "down", url: down }], {
      auth,
      logger: pino({ level: "trace" }, stream),
    });
    const snap = await r.read();
    const expected = `Basic ${Buffer.from("roller:pw-Xy9-secret").toString("base64")}`;
    const w0 = ws[0];
    expect(w0?.requests.find((q) => q.path === "/")?.authorization).toBe(expected);
    expect(w0?.requests.find((q) => q.path.startsWith("/connectors"))?.authorization).toBe(expected);
    expect(w0?.requests.find((q) => q.path === "/metrics")?.authorization).toBeNull();
    const everything = `${JSON.stringify(snap)} ${stream.text()}`;
    expect(stream.text()).toContain("connect request retry");
    expect(everything).not.toContain("pw-Xy9-secret");
    expect(everything).not.toContain(expected.slice("Basic ".length));
  });

  it("rejects with the caller's reason when aborted", async () => {
    const hanging = await startLoopbackServer(() => undefined);
    servers.push(hanging);
    const r = reader([{ name: "stuck", url: hanging.url }], { timeoutMs: 5_000 });
    const controller = new AbortController();
    const reason = new Error("stop");
    const reading = r.read(controller.signal);
    // Aborted while its calls are in flight (the stuck worker has them), not before they are sent.
    await hanging.received(1);
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
  });
});
