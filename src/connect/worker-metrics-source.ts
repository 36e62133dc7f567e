import type { WorkerMetrics } from "../core/snapshot.js";
import type { WorkerEndpoint } from "./worker-endpoint.js";

/**
 * The port through which the cluster reader learns what only a worker's metrics say: the group protocol, the
 * leader, the epoch, whether it rebalances, what it was assigned, when its process started. Adapter: Prometheus
 * (`prometheus-metrics-source.ts`, a JMX exporter's scrape); a Jolokia one would implement the same. Every adapter
 * passes test/connect/worker-metrics-source-contract.ts.
 */
export interface WorkerMetricsSource {
  /**
   * The worker's metrics; null when it has none to give (no metrics endpoint, unreachable, unreadable): a worker
   * without metrics is a value, as in the snapshot. A metric it does not report is null in the result. Rejects
   * only on abort, with the signal's reason.
   */
  read(worker: WorkerEndpoint, signal?: AbortSignal): Promise<WorkerMetrics | null>;
}
