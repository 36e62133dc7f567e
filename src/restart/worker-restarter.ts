/**
 * The port through which a rollout restarts one worker. Adapters: one folder per executor under src/restart/, all
 * listed in EXECUTORS (executors.ts). Every adapter passes test/restart/worker-restarter-contract.ts.
 */
export interface RestartTarget {
  /** The worker's name in the configuration. */
  readonly name: string;
  /** REST base URL. */
  readonly url: string;
  /** Host part of the REST URL. */
  readonly host: string;
  /** `host:port`. */
  readonly workerId: string;
  /** Kubernetes pod name, when configured. */
  readonly pod: string | null;
}

export interface RestartRequest {
  readonly worker: RestartTarget;
  /** "upgrade" changes the version/image; "restart" restarts on the same version. */
  readonly kind: "upgrade" | "restart";
  /** Validated target version (e.g. "3.7.1"); for a plain restart, the version the worker runs. */
  readonly version: string;
  /** Validated image reference the executor sets, or null (plain restart / executors without images). */
  readonly image: string | null;
  /** Unique per rollout step, stable across retries and takeovers: lets an executor refuse a duplicate. */
  readonly stepId: string;
  readonly signal?: AbortSignal;
}

export interface RestartReceipt {
  /** What the executor did, in words for the thread and the audit log. */
  readonly detail: string;
}

export interface WorkerRestarter {
  /** The executor's `kind` in the config. */
  readonly kind: string;
  /**
   * Issues the restart of one worker and resolves once the executor has accepted it (not once the worker is back:
   * the settle gate watches that). Rejects with AppError `restart/failed` (retryable when it may be tried again) or
   * `restart/refused` (input rejected before anything ran).
   */
  restart(request: RestartRequest): Promise<RestartReceipt>;
  /** Releases sockets, timers and child processes. */
  close(): Promise<void>;
}
