import type { WorkerMetricsSource } from "../../src/connect/worker-metrics-source.js";
import type { WorkerMetrics } from "../../src/core/snapshot.js";

/** A WorkerMetricsSource over a map of metrics by worker name: a worker not in it is out of reach. */
export function createMemoryMetricsSource(
  byWorker: ReadonlyMap<string, WorkerMetrics>,
): WorkerMetricsSource & { readonly asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async read(worker, signal) {
      signal?.throwIfAborted();
      asked.push(worker.name);
      if (!worker.metricsUrl) return null;
      return byWorker.get(worker.name) ?? null;
    },
  };
}
