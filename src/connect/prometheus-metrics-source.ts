import type { Logger } from "pino";
import { toAppError } from "../core/errors.js";
import { workerIdOf } from "../core/snapshot.js";
import type { HttpClient } from "./http-client.js";
import { metricsFromPrometheus, parsePrometheusText, READ_SERIES } from "./prometheus.js";
import { redactUrl } from "./url-credentials.js";
import type { WorkerMetricsSource } from "./worker-metrics-source.js";

export interface PrometheusMetricsSourceOptions {
  /** The client the scrapes go through (the reader's: same deadlines, retries and counted attempts). */
  readonly http: HttpClient;
  readonly logger?: Logger | undefined;
}

/**
 * WorkerMetricsSource over a JMX exporter's Prometheus text at each worker's `metricsUrl`, with the series names
 * Strimzi's exporter rules produce (`WORKER_METRIC_NAMES`). Lines it cannot read are skipped and logged at debug.
 */
export function createPrometheusMetricsSource(options: PrometheusMetricsSourceOptions): WorkerMetricsSource {
  const { http, logger: log } = options;
  return {
    async read(worker, signal) {
      if (!worker.metricsUrl) return null;
      try {
        const res = await http.send({
          url: worker.metricsUrl,
          withAuth: false,
          ...(signal ? { signal } : {}),
        });
        const text = parsePrometheusText(res.text, READ_SERIES);
        if (text.errors.length > 0) {
          log?.debug(
            {
              workerId: workerIdOf(worker.url),
              url: res.url,
              errors: text.errors.slice(0, 5),
              count: text.errors.length,
            },
            "metrics lines skipped",
          );
        }
        return metricsFromPrometheus(text.samples);
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        log?.debug(
          { err: toAppError(err), workerId: workerIdOf(worker.url), url: redactUrl(worker.metricsUrl) },
          "worker metrics read failed",
        );
        return null;
      }
    },
  };
}
