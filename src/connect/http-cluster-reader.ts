import type { Logger } from "pino";
import { type AppError, ErrorCode, toAppError } from "../core/errors.js";
import { hasHealthEndpoint } from "../core/protocol.js";
import type {
  ClusterSnapshot,
  ConnectorSnapshot,
  ExactlyOnceSourceSupport,
  WorkerHealth,
  WorkerSnapshot,
} from "../core/snapshot.js";
import { workerIdOf } from "../core/snapshot.js";
import type { ClusterReader } from "./cluster-reader.js";
import { toConnectorSnapshot } from "./connector-snapshots.js";
import { createHttpClient, type HttpClient, type HttpTlsOptions } from "./http-client.js";
import { isLegacyConnectorList, readLegacyConnectors } from "./legacy-connectors.js";
import { createPrometheusMetricsSource } from "./prometheus-metrics-source.js";
import { restartTasksOver } from "./restart-tasks.js";
import { parseExpandedConnectors, parseHealth, parseServerInfo } from "./schemas.js";
import type { HttpAuth } from "./url-credentials.js";
import type { WorkerEndpoint } from "./worker-endpoint.js";
import type { WorkerMetricsSource } from "./worker-metrics-source.js";

/**
 * The ClusterReader over Connect's REST API: one cluster-wide `GET /connectors?expand=status&expand=info` (asked of
 * the worker that last answered it), and `GET /`, `/health` (from 3.9) and the metrics of every worker.
 */

export interface HttpClusterReaderOptions {
  readonly cluster: string;
  readonly workers: readonly WorkerEndpoint[];
  readonly auth?: HttpAuth | null;
  readonly tls?: HttpTlsOptions | null;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly now: () => number;
  readonly logger?: Logger;
  readonly declared?: { readonly exactlyOnceSourceSupport?: ExactlyOnceSourceSupport | null };
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  readonly maxBodyBytes?: number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random?: () => number;
  /** Called before every HTTP attempt (retries included), REST and metrics alike: how a benchmark counts calls. */
  readonly onHttpAttempt?: () => void;
  /**
   * Where worker metrics come from, given the reader's HTTP client and logger. Default: the Prometheus scrape of each
   * worker's `metricsUrl` (`createPrometheusMetricsSource`).
   */
  readonly metricsSource?: (http: HttpClient, logger: Logger | undefined) => WorkerMetricsSource;
}

interface ConnectorsResult {
  readonly connectors: readonly ConnectorSnapshot[] | null;
  readonly error: string | null;
}

interface RestResult {
  readonly reachable: boolean;
  readonly error: string | null;
  readonly version: string | null;
  readonly health: WorkerHealth;
}

function baseUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

function rethrowIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

export function createHttpClusterReader(options: HttpClusterReaderOptions): ClusterReader {
  const log = options.logger?.child({ component: "connect-reader", cluster: options.cluster });
  const client: HttpClient = createHttpClient({
    timeoutMs: options.timeoutMs,
    retries: options.retries,
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.backoffBaseMs === undefined ? {} : { backoffBaseMs: options.backoffBaseMs }),
    ...(options.backoffMaxMs === undefined ? {} : { backoffMaxMs: options.backoffMaxMs }),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.onHttpAttempt ? { onAttempt: options.onHttpAttempt } : {}),
    ...(log ? { logger: log } : {}),
  });
  const metricsSourceOf =
    options.metricsSource ?? ((http, logger) => createPrometheusMetricsSource({ http, logger }));
  const metricsSource = metricsSourceOf(client, log);
  const eos = options.declared?.exactlyOnceSourceSupport ?? null;
  /** Index of the worker that last answered the cluster-wide call: asked first next time. */
  let preferred = 0;

  async function readConnectors(signal: AbortSignal | undefined): Promise<ConnectorsResult> {
    const count = options.workers.length;
    let lastError: AppError | null = null;
    let legacy: { index: number; names: string[] } | null = null;
    for (let i = 0; i < count; i++) {
      const index = (preferred + i) % count;
      const worker = options.workers[index];
      if (!worker) continue;
      try {
        const res = await client.getJson({
          url: `${baseUrl(worker.url)}/connectors?expand=status&expand=info`,
          ...(signal ? { signal } : {}),
        });
        if (isLegacyConnectorList(res.json)) {
          // A worker before 2.3 ignores `expand`: prefer a newer worker; fall back to per-connector calls.
          legacy ??= { index, names: res.json };
          continue;
        }
        const parsed = parseExpandedConnectors(res.json, res.url);
        for (const s of parsed.skipped) {
          log?.warn(
            { connector: s.name, reason: s.reason, workerId: workerIdOf(worker.url) },
            "connector skipped",
          );
        }
        preferred = index;
        return { connectors: parsed.connectors.map(toConnectorSnapshot), error: null };
      } catch (err) {
        rethrowIfAborted(signal);
        lastError = toAppError(err, ErrorCode.ConnectBadResponse);
        log?.debug({ err: lastError, workerId: workerIdOf(worker.url) }, "connector status read failed");
        if (lastError.code !== ErrorCode.ConnectUnreachable && lastError.code !== ErrorCode.ConnectTimeout)
          break;
      }
    }
    if (legacy) {
      const worker = options.workers[legacy.index];
      if (worker) {
        try {
          const parsed = await readLegacyConnectors(client, baseUrl(worker.url), legacy.names, signal);
          preferred = legacy.index;
          return { connectors: parsed.connectors.map(toConnectorSnapshot), error: null };
        } catch (err) {
          rethrowIfAborted(signal);
          lastError = toAppError(err, ErrorCode.ConnectBadResponse);
        }
      }
    }
    return { connectors: null, error: lastError?.message ?? "No worker is configured for this cluster" };
  }

  async function readHealth(
    base: string,
    version: string,
    signal: AbortSignal | undefined,
  ): Promise<WorkerHealth> {
    if (!hasHealthEndpoint(version)) return "unsupported";
    try {
      const res = await client.getJson({
        url: `${base}/health`,
        accept: [200, 500, 503],
        ...(signal ? { signal } : {}),
      });
      return parseHealth(res.json, res.status, res.url);
    } catch (err) {
      rethrowIfAborted(signal);
      log?.debug({ err: toAppError(err), workerId: workerIdOf(base) }, "worker health read failed");
      return "unknown";
    }
  }

  async function readVersion(
    worker: WorkerEndpoint,
    signal: AbortSignal | undefined,
  ): Promise<Omit<RestResult, "health">> {
    const base = baseUrl(worker.url);
    try {
      const res = await client.getJson({ url: `${base}/`, ...(signal ? { signal } : {}) });
      return { reachable: true, error: null, version: parseServerInfo(res.json, res.url).version };
    } catch (err) {
      rethrowIfAborted(signal);
      const error = toAppError(err, ErrorCode.ConnectBadResponse);
      log?.debug({ err: error, workerId: workerIdOf(base) }, "worker unreachable");
      return { reachable: false, error: error.message, version: null };
    }
  }

  async function readRest(worker: WorkerEndpoint, signal: AbortSignal | undefined): Promise<RestResult> {
    const rest = await readVersion(worker, signal);
    if (rest.version === null) return { ...rest, health: "unknown" };
    return { ...rest, health: await readHealth(baseUrl(worker.url), rest.version, signal) };
  }

  async function readWorker(
    worker: WorkerEndpoint,
    signal: AbortSignal | undefined,
  ): Promise<WorkerSnapshot> {
    const [rest, metrics] = await Promise.all([readRest(worker, signal), metricsSource.read(worker, signal)]);
    return {
      name: worker.name,
      url: worker.url,
      workerId: workerIdOf(worker.url),
      ...rest,
      metrics,
      exactlyOnceSourceSupport: eos,
    };
  }

  return {
    async read(signal?: AbortSignal): Promise<ClusterSnapshot> {
      rethrowIfAborted(signal);
      const readAt = options.now();
      const [connectors, workers] = await Promise.all([
        readConnectors(signal),
        Promise.all(options.workers.map((w) => readWorker(w, signal))),
      ]);
      return {
        cluster: options.cluster,
        readAt,
        workers,
        connectors: connectors.connectors,
        connectorsError: connectors.error,
      };
    },
    async probe(name, probeOptions, signal): Promise<WorkerSnapshot> {
      rethrowIfAborted(signal);
      const worker = options.workers.find((w) => w.name === name);
      const base = { name, exactlyOnceSourceSupport: eos, metrics: null, health: "unknown" as const };
      if (!worker)
        return {
          ...base,
          url: "",
          workerId: "",
          reachable: false,
          error: `${name} is not a configured worker`,
          version: null,
        };
      const [version, metrics] = await Promise.all([
        readVersion(worker, signal),
        probeOptions.metrics ? metricsSource.read(worker, signal) : Promise.resolve(null),
      ]);
      return { ...base, url: worker.url, workerId: workerIdOf(worker.url), ...version, metrics };
    },
    restartTasks: (tasks, signal) =>
      restartTasksOver(
        client,
        options.workers.map((w) => w.url),
        tasks,
        signal,
      ),
    close: () => client.close(),
  };
}
