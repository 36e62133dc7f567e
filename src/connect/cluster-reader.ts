import type { ClusterSnapshot, WorkerSnapshot } from "../core/snapshot.js";

/**
 * The port through which everything else sees a Connect cluster: one poll → one ClusterSnapshot. Adapter: HTTP
 * (`http-cluster-reader.ts`, Connect's REST API plus a WorkerMetricsSource). Counting reads (the benchmark) is a
 * decorator's job, not the port's.
 */
export interface ClusterReader {
  /** Never rejects because a worker is down (that is a value in the snapshot); rejects with the reason on abort. */
  read(signal?: AbortSignal): Promise<ClusterSnapshot>;
  /**
   * One worker alone, cheaply: its `GET /` (one call; no `/health`), and its metrics when `metrics` is set. For
   * watching a restarted worker come back without reading the whole cluster. Optional: without it, callers read.
   */
  probe?(
    worker: string,
    options: { readonly metrics: boolean },
    signal?: AbortSignal,
  ): Promise<WorkerSnapshot>;
  /**
   * Restarts tasks ("connector/N") through Connect's REST API (`POST /connectors/{c}/tasks/{t}/restart`): the one
   * write a reader makes, asked by a person for tasks FAILED by a fencing error. Optional: without it, nothing is sent.
   */
  restartTasks?(tasks: readonly string[], signal?: AbortSignal): Promise<readonly TaskRestartResult[]>;
  close(): Promise<void>;
}

/** What Connect answered a task restart (status null: no worker answered; `error` says why). */
export interface TaskRestartResult {
  readonly task: string;
  readonly status: number | null;
  readonly error: string | null;
}
