import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { WorkerEndpoint } from "../../src/connect/worker-endpoint.js";
import { workerIdOf } from "../../src/core/snapshot.js";
import { type LoopbackServer, sendJson, startLoopbackServer } from "./loopback-server.js";

/**
 * Real answers of Kafka Connect 3.9.1 and 4.1.1 workers, recorded from the lab (test/fixtures/connect/), and a
 * loopback cluster that serves them byte for byte. The only change is the address: the recorded `host:port` of each
 * worker (in `worker_id`s and in `leader-name`) becomes the address of the test server standing in for it.
 */
export const RECORDED_VERSIONS = ["3.9.1", "4.1.1"] as const;
export type RecordedVersion = (typeof RECORDED_VERSIONS)[number];

export interface RecordedFiles {
  /** `GET /` */
  readonly root: string;
  /** `GET /health` (answered 200) */
  readonly health: string;
  /** `GET /connectors?expand=status&expand=info` */
  readonly expand: string;
  /** `GET /connectors/conn-01/status` */
  readonly status: string;
  /** The JMX exporter's `/metrics` text, with the rules in deploy/jmx-exporter/connect.yml. */
  readonly metrics: string;
}

export interface RecordedWorker {
  readonly name: string;
  /** The `host:port` it had when recorded. */
  readonly workerId: string;
  readonly version: RecordedVersion;
  /** Its own answers are the ones in `<version>/` (for the other worker of a version, only the REST ones fit). */
  readonly recorded: boolean;
}

const dir = fileURLToPath(new URL("../fixtures/connect/", import.meta.url));
const read = (path: string) => readFileSync(`${dir}${path}`, "utf8");

export function recordedFiles(version: RecordedVersion): RecordedFiles {
  return {
    root: read(`${version}/root.json`),
    health: read(`${version}/health.json`),
    expand: read(`${version}/connectors-expand.json`),
    status: read(`${version}/connector-status.json`),
    metrics: read(`${version}/metrics.txt`),
  };
}

/** test/fixtures/connect/cluster.json: which worker of the lab each recording came from. */
export const RECORDED_CLUSTER = JSON.parse(read("cluster.json")) as {
  readonly broker: string;
  readonly workers: readonly RecordedWorker[];
};

export function recordedWorker(name: string): RecordedWorker {
  const w = RECORDED_CLUSTER.workers.find((x) => x.name === name);
  if (!w) throw new Error(`${name} is not in test/fixtures/connect/cluster.json`);
  return w;
}

export interface RecordedCluster {
  /** As a connect-roll config would list them; a worker without recorded metrics has no metrics URL. */
  readonly endpoints: readonly WorkerEndpoint[];
  urlOf(name: string): string;
  idOf(name: string): string;
  /** Rewrites recorded addresses in a text to the test servers' ones. */
  rewrite(text: string): string;
  readonly servers: readonly LoopbackServer[];
  /** The worker's port refuses connections from now on, as after a crash of its process. */
  crash(name: string): Promise<void>;
  close(): Promise<void>;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The recorded 3-worker cluster on loopback. */
export async function startRecordedCluster(): Promise<RecordedCluster> {
  const workers = RECORDED_CLUSTER.workers;
  let rewrite: (text: string) => string = (t) => t;
  const servers: LoopbackServer[] = [];
  for (const w of workers) {
    const files = recordedFiles(w.version);
    servers.push(
      await startLoopbackServer((req, res) => {
        const body = (text: string, type: string) => {
          const out = rewrite(text);
          res.writeHead(200, { "content-type": type, "content-length": Buffer.byteLength(out) });
          res.end(out);
        };
        const json = "application/json";
        switch (req.url) {
          case "/":
            return body(files.root, json);
          case "/health":
            return body(files.health, json);
          case "/connectors?expand=status&expand=info":
            return body(files.expand, json);
          case "/connectors/conn-01/status":
            return body(files.status, json);
          case "/metrics":
            if (w.recorded) return body(files.metrics, "text/plain; version=0.0.4; charset=utf-8");
        }
        return sendJson(res, 404, { error_code: 404, message: "HTTP 404 Not Found" });
      }),
    );
  }
  const url = (name: string): string => {
    const i = workers.findIndex((w) => w.name === name);
    const s = servers[i];
    if (!s) throw new Error(`no server for ${name}`);
    return s.url;
  };
  const newId = new Map(workers.map((w) => [w.workerId, workerIdOf(url(w.name))]));
  const pattern = new RegExp(workers.map((w) => escapeRegExp(w.workerId)).join("|"), "g");
  rewrite = (text) => text.replace(pattern, (id) => newId.get(id) ?? id);
  const down = new Set<string>();
  return {
    endpoints: workers.map((w) => ({
      name: w.name,
      url: url(w.name),
      metricsUrl: w.recorded ? `${url(w.name)}/metrics` : null,
    })),
    urlOf: url,
    idOf: (name) => workerIdOf(url(name)),
    rewrite: (text) => rewrite(text),
    servers,
    async crash(name) {
      const i = workers.findIndex((w) => w.name === name);
      const server = servers[i];
      if (down.has(name) || !server) return;
      down.add(name);
      await server.close();
    },
    close: async () => {
      await Promise.all(servers.filter((_, i) => !down.has(workers[i]?.name ?? "")).map((s) => s.close()));
    },
  };
}
