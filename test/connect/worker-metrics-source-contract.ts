import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkerEndpoint } from "../../src/connect/worker-endpoint.js";
import type { WorkerMetricsSource } from "../../src/connect/worker-metrics-source.js";
import type { WorkerMetrics } from "../../src/core/snapshot.js";

/** One source for one test, and workers made for it. */
export interface WorkerMetricsHarness {
  readonly source: WorkerMetricsSource;
  /** A worker that reports these metrics (a null one it does not report at all). */
  withMetrics(metrics: WorkerMetrics): Promise<WorkerEndpoint>;
  /** A worker configured without a metrics endpoint. */
  withoutEndpoint(): Promise<WorkerEndpoint>;
  /** A worker whose metrics endpoint cannot be reached. */
  unreachable(): Promise<WorkerEndpoint>;
  close(): Promise<void>;
}

/** What a worker in a settled 3-worker group reports. */
export const SETTLED_WORKER: WorkerMetrics = {
  protocol: "sessioned",
  leaderUrl: "http://10.0.0.5:8083/",
  epoch: 7,
  rebalancing: false,
  completedRebalances: 12,
  timeSinceLastRebalanceMs: 183_204,
  connectorCount: 1,
  taskCount: 2,
  assignedConnectors: 1,
  assignedTasks: 2,
  startTimeMs: 1_717_000_000_000,
  taskFlow: {
    "orders-source/0": { kind: "source", records: 1_204, lag: null, fetches: null, failures: 0 },
    "orders-sink/1": { kind: "sink", records: 980, lag: 12, fetches: 3_311, failures: 2 },
  },
  jvm: {
    heapUsedBytes: 35_056_992,
    heapAfterGcBytes: 14_627_744,
    heapMaxBytes: 389_283_840,
    gcSeconds: 0.133,
  },
};

/** The behaviour every WorkerMetricsSource adapter must have (the in-memory fake included). */
export function workerMetricsSourceContract(
  name: string,
  factory: () => Promise<WorkerMetricsHarness>,
): void {
  describe(`WorkerMetricsSource contract: ${name}`, () => {
    let h: WorkerMetricsHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.close();
    });

    it("reads every metric the reader uses: protocol, leader, epoch, rebalancing, counts, start time, task flow, JVM", async () => {
      expect(await h.source.read(await h.withMetrics(SETTLED_WORKER))).toEqual(SETTLED_WORKER);
    });

    it("gives null for each metric a worker does not report, and keeps the others", async () => {
      const partial: WorkerMetrics = {
        ...SETTLED_WORKER,
        protocol: null,
        leaderUrl: null,
        rebalancing: true,
        assignedTasks: null,
        startTimeMs: null,
        taskFlow: null,
        jvm: null,
      };
      expect(await h.source.read(await h.withMetrics(partial))).toEqual(partial);
    });

    it("gives null metrics, not an error, for a worker without a metrics endpoint or out of reach", async () => {
      expect(await h.source.read(await h.withoutEndpoint())).toBeNull();
      expect(await h.source.read(await h.unreachable())).toBeNull();
    });

    it("rejects with the caller's reason when aborted", async () => {
      const worker = await h.withMetrics(SETTLED_WORKER);
      const controller = new AbortController();
      const reason = new Error("stop");
      controller.abort(reason);
      await expect(h.source.read(worker, controller.signal)).rejects.toBe(reason);
    });
  });
}
