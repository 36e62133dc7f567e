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
  /**
   * What the per-task metrics say of the data each task on this worker moves, by task key ("connector/N"). Null (or
   * absent) when the worker's metrics have no per-task series at all (an exporter without the per-task rules).
   */
  readonly taskFlow?: Readonly<Record<string, TaskFlowReading>> | null;
  /**
   * The worker JVM's heap and time in GC, from the exporter's JVM series (the JMX exporter's Java agent exports them
   * by default). Absent or null when not exported.
   */
  readonly jvm?: JvmReading | null;
}

/** A worker JVM's heap now and its time in garbage collection since it started. */
export interface JvmReading {
  readonly heapUsedBytes: number | null;
  /**
   * The heap pools' use just after their last collection, summed: the live heap, steady where `heapUsedBytes` swings
   * with every young collection.
   */
  readonly heapAfterGcBytes: number | null;
  readonly heapMaxBytes: number | null;
  /** Summed over the collectors. */
  readonly gcSeconds: number | null;
}

/** One task's data-flow counters, read from the worker that runs it; they count since that task instance started. */
export interface TaskFlowReading {
  readonly kind: "source" | "sink";
  /** A source's records written (`source-record-write-total`), a sink's records read (`sink-record-read-total`). */
  readonly records: number;
  /**
   * A sink's consumer lag: Σ `records-lag` over its partitions; null for a source, or when not exported. The consumer
   * updates it only when it fetches: while its partitions are paused (a stuck task) it stays at its last value.
   */
  readonly lag: number | null;
  /**
   * A sink consumer's fetch requests (`fetch-total`): they go on while it polls an empty log and stop while it is
   * paused or stuck, which tells "nothing to read" (lag 0, fetching) from "stuck" (lag frozen, not fetching).
   * Null for a source, or when not exported.
   */
  readonly fetches: number | null;
  /** Record failures (`total-record-failures`) and dead-letter-queue produce failures of this instance. */
  readonly failures: number;
  /**
   * An exactly-once source instance's transactions (`transaction-size-avg`, recorded only on commit): "committed"
   * once it committed one since it started, "none" before; absent when the series is not exported (not exactly-once).
   */
  readonly transactions?: "committed" | "none";
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

/** Length of a connector's config hash: 64 bits, enough to tell a changed config from an unchanged one. */
export const CONFIG_HASH_HEX_DIGITS = 16;

/**
 * Whether two config hashes name the same config. A checkpoint written by a build that kept all 64 hex digits of the
 * sha256 holds the longer form of the same prefix, so a hash of that length compares on the shorter one's digits.
 */
export function sameConfigHash(a: string, b: string): boolean {
  if (a.length === b.length) return a === b;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.length === CONFIG_HASH_HEX_DIGITS && long.startsWith(short);
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
