import type { ServerResponse } from "node:http";
import type { ClusterReader } from "../../src/connect/cluster-reader.js";
import {
  createHttpClusterReader,
  type HttpClusterReaderOptions,
} from "../../src/connect/http-cluster-reader.js";
import type { WorkerEndpoint } from "../../src/connect/worker-endpoint.js";
import { workerIdOf } from "../../src/core/snapshot.js";
import { expandedConnectors, HEALTHY, jmxExporterScrape, serverInfo } from "./connect-fixtures.js";
import { type LoopbackServer, sendJson, startLoopbackServer } from "./loopback-server.js";

/** Fake Connect workers on loopback HTTP and a reader over them, for the cluster reader's tests. */

export interface FakeWorkerState {
  version: string;
  health: { status: number; body: unknown };
  /** Answer to the cluster-wide call, by call index. */
  connectors: (res: ServerResponse, index: number) => void;
  metrics: string | null;
}

/** Servers and readers a test started; `closeFakeWorkers` closes them after each. */
export const servers: LoopbackServer[] = [];
const readers: ClusterReader[] = [];
/** The worker ids of the newest three-worker cluster (its statuses name them). */
export let cluster: { ids: string[] } = { ids: [] };

export async function fakeWorker(
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

export async function threeWorkers(overrides: Partial<FakeWorkerState> = {}) {
  const ws = [await fakeWorker(overrides), await fakeWorker(overrides), await fakeWorker(overrides)];
  cluster = { ids: ws.map((w) => workerIdOf(w.url)) };
  ws.forEach((w, i) => {
    w.state.metrics ??= jmxExporterScrape({ leader: `${ws[0]?.url}/`, epoch: 7, assignedTasks: i });
  });
  return ws;
}

export function endpoints(ws: readonly { url: string }[], withMetrics = true): WorkerEndpoint[] {
  return ws.map((w, i) => ({
    name: `connect-${i}`,
    url: w.url,
    metricsUrl: withMetrics ? `${w.url}/metrics` : null,
  }));
}

let attemptCount = 0;

/** HTTP attempts made by the newest reader (its `onHttpAttempt`), retries included. */
export const attempts = (): number => attemptCount;

export function reader(
  workers: WorkerEndpoint[],
  options: Partial<HttpClusterReaderOptions> = {},
): ClusterReader {
  let t = 1_000;
  attemptCount = 0;
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
      attemptCount += 1;
    },
    ...options,
  });
  readers.push(r);
  return r;
}

/** Reads once and says how many HTTP attempts the read made. */
export async function callsOfOneRead(r: ClusterReader): Promise<number> {
  const before = attemptCount;
  await r.read();
  return attemptCount - before;
}

export const connectorCallsOf = (ws: readonly LoopbackServer[]) =>
  ws.map((w) => w.requests.filter((r) => r.path.startsWith("/connectors")).length);

export async function closeFakeWorkers(): Promise<void> {
  await Promise.all(readers.splice(0).map((r) => r.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
}
