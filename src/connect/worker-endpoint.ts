/** One configured worker of a cluster: where its REST API and its metrics are. */
export interface WorkerEndpoint {
  readonly name: string;
  /** REST base URL, e.g. "http://10.0.0.5:8083". */
  readonly url: string;
  /**
   * Where its metrics are read, e.g. a JMX exporter's "http://10.0.0.5:9404/metrics" for the Prometheus source; null
   * when it exports none. No basic auth is sent to it.
   */
  readonly metricsUrl?: string | null;
}
