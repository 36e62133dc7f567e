import type { ConnectProtocol } from "./protocol.js";

/**
 * What one poll of a Connect cluster saw. Built by `src/connect` (real clusters) and by test builders.
 * `null` always means "unknown" (not reported, unreachable, metric missing), never a guess.
 */
export type TaskState = "RUNNING" | "PAUSED" | "FAILED" | "UNASSIGNED" | "RESTARTING" | "UNKNOWN";
export type ConnectorState = TaskState | "STOPPED";
export type ConnectorType = "source" | "sink" | "unknown";
export type WorkerHealth = "healthy" | "starting" | "unhealthy" | "unsupported" | "unknown";
/** A worker's `exactly.once.source.support`. */
export type ExactlyOnceSourceSupport = "disabled" | "preparing" | "enabled";

export interface WorkerMetrics {
  readonly protocol: ConnectProtocol | null;
  /** The leader's REST URL as the `leader-name` metric reports it, e.g. "http://10.0.0.5:8083/". */
  readonly leaderUrl: string | null;
  readonly epoch: number | null;
  readonly rebalancing: boolean | null;
  readonly completedRebalances: number | null;
  readonly timeSinceLastRebalanceMs: number | null;
  readonly connectorCount: number | null;
  readonly taskCount: number | null;
  readonly assignedConnectors: number | null;
  readonly assignedTasks: number | null;
  /**
   * When the worker's current process started, epoch ms: Connect's app-info `start-time-ms`, exported as
   * `kafka_connect_app_info_start_time_ms`. Absent or null when not exported. A plain restart skips a worker that
   * started after the rollout began (it needs no second restart, whatever the job store remembers).
   */
  readonly startTimeMs?: number | null;
}

export interface WorkerSnapshot {
  /** The name the configuration gives the worker. */
  readonly name: string;
  /** REST base URL, e.g. "http://10.0.0.5:8083". */
  readonly url: string;
  /** `host:port` of the REST URL: what Connect writes as `worker_id` in statuses. */
  readonly workerId: string;
  readonly reachable: boolean;
  /** Why the worker could not be read, in words a user can act on. */
  readonly error: string | null;
  readonly version: string | null;
  readonly health: WorkerHealth;
  /** null when no metrics URL is configured or the metrics could not be read. */
  readonly metrics: WorkerMetrics | null;
  /** Worker-level settings we know (declared in config or read from the worker), e.g. exactly.once.source.support. */
  readonly exactlyOnceSourceSupport: ExactlyOnceSourceSupport | null;
}

export interface TaskSnapshot {
  readonly id: number;
  readonly state: TaskState;
  /**
   * `host:port` from the status store; may be stale after a crash
   * (docs/connect-behaviour.md#stale-running-after-a-crash).
   */
  readonly workerId: string | null;
  readonly trace: string | null;
}

export interface ConnectorSnapshot {
  readonly name: string;
  readonly type: ConnectorType;
  readonly state: ConnectorState;
  readonly workerId: string | null;
  /** Stable hash of the connector's configuration (config freeze). */
  readonly configHash: string;
  /** The few settings connect-roll reads (connector.class, tasks.max, exactly.once.support…): never credentials. */
  readonly config: Readonly<Record<string, string>>;
  /** Number of task configs (`info.tasks`): the configured task count. */
  readonly taskCount: number;
  readonly tasks: readonly TaskSnapshot[];
}

export interface ClusterSnapshot {
  readonly cluster: string;
  /** Time of reading, ms since epoch (virtual in simulations). */
  readonly readAt: number;
  readonly workers: readonly WorkerSnapshot[];
  /** null when no worker could answer the cluster-wide status call. */
  readonly connectors: readonly ConnectorSnapshot[] | null;
  readonly connectorsError: string | null;
}

/** "connector/N": how tasks are named everywhere in this product (and in the simulator's API). */
export function taskKey(connector: string, id: number): string {
  return `${connector}/${id}`;
}

/** `host:port` of a URL, with the scheme's default port when none is given. */
export function workerIdOf(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${u.hostname}:${port}`;
}

/** Normalises a REST URL for comparison with `leader-name` ("http://h:8083/" vs "http://h:8083"). */
export function sameUrl(a: string, b: string): boolean {
  const norm = (s: string) => {
    try {
      const u = new URL(s);
      return `${u.protocol}//${workerIdOf(s)}${u.pathname.replace(/\/+$/, "")}`;
    } catch {
      return s.replace(/\/+$/, "");
    }
  };
  return norm(a) === norm(b);
}
