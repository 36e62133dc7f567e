import type { ConnectProtocol } from "../../src/core/protocol.js";
import type {
  ClusterSnapshot,
  ConnectorSnapshot,
  ConnectorState,
  ConnectorType,
  TaskFlowReading,
  TaskSnapshot,
  TaskState,
  WorkerHealth,
  WorkerMetrics,
  WorkerSnapshot,
} from "../../src/core/snapshot.js";
import { workerIdOf } from "../../src/core/snapshot.js";

type ExactlyOnce = WorkerSnapshot["exactlyOnceSourceSupport"];

/**
 * Fluent builder of `ClusterSnapshot`s for tests:
 * `aCluster().withWorker("worker-1", w => w.version("3.6.1").leader()).withConnector("orders", c =>
 * c.source().tasks(4, "RUNNING", "worker-1")).at(1000).build()`.
 * Workers are referenced by name everywhere and resolved to `host:port` worker ids at build time (a name that is
 * no configured worker is used as a raw worker id). Unless set explicitly, metrics are derived from the tasks:
 * `assigned-tasks` = tasks naming the worker that are not UNASSIGNED, every worker agrees on the leader and epoch.
 * Builders are mutable; `copy()` forks one. Calling `withWorker`/`withConnector` again with a known name edits it.
 */
export function aCluster(name = "test-cluster"): ClusterSnapshotBuilder {
  return new ClusterSnapshotBuilder(name);
}

export class WorkerBuilder {
  url: string;
  versionValue: string | null = "3.7.1";
  reachableValue = true;
  errorValue: string | null = null;
  healthValue: WorkerHealth = "healthy";
  hasMetrics = true;
  isLeader = false;
  metricOverrides: Partial<WorkerMetrics> = {};
  exactlyOnce: ExactlyOnce = null;

  constructor(readonly name: string) {
    this.url = `http://${name}:8083`;
  }

  version(v: string | null): this {
    this.versionValue = v;
    return this;
  }
  withUrl(url: string): this {
    this.url = url;
    return this;
  }
  /** Marks this worker as the group leader: every worker's `leader-name` points at it. */
  leader(): this {
    this.isLeader = true;
    return this;
  }
  notLeader(): this {
    this.isLeader = false;
    return this;
  }
  unreachable(error = "connection refused"): this {
    this.reachableValue = false;
    this.errorValue = error;
    return this;
  }
  reachable(): this {
    this.reachableValue = true;
    this.errorValue = null;
    return this;
  }
  health(h: WorkerHealth): this {
    this.healthValue = h;
    return this;
  }
  noMetrics(): this {
    this.hasMetrics = false;
    return this;
  }
  metrics(m: Partial<WorkerMetrics>): this {
    this.hasMetrics = true;
    this.metricOverrides = { ...this.metricOverrides, ...m };
    return this;
  }
  assignedTasks(n: number): this {
    return this.metrics({ assignedTasks: n });
  }
  protocol(p: ConnectProtocol): this {
    return this.metrics({ protocol: p });
  }
  epoch(n: number): this {
    return this.metrics({ epoch: n });
  }
  rebalancing(on = true): this {
    return this.metrics({ rebalancing: on });
  }
  lastRebalanceAgo(ms: number): this {
    return this.metrics({ timeSinceLastRebalanceMs: ms });
  }
  leaderUrl(url: string | null): this {
    return this.metrics({ leaderUrl: url });
  }
  /** A task's data-flow reading on this worker: a source's records written, or with `kind: "sink"` a sink's. */
  flow(task: string, records: number, extra: Partial<TaskFlowReading> = {}): this {
    const reading: TaskFlowReading = {
      kind: "source",
      records,
      lag: null,
      fetches: null,
      failures: 0,
      ...extra,
    };
    return this.metrics({ taskFlow: { ...(this.metricOverrides.taskFlow ?? {}), [task]: reading } });
  }
  /** Drops one task's reading (its instance is gone from this worker). */
  withoutFlow(task: string): this {
    const { [task]: _gone, ...rest } = this.metricOverrides.taskFlow ?? {};
    return this.metrics({ taskFlow: rest });
  }
  exactlyOnceSource(s: ExactlyOnce): this {
    this.exactlyOnce = s;
    return this;
  }
  copy(): WorkerBuilder {
    return Object.assign(new WorkerBuilder(this.name), this, {
      metricOverrides: { ...this.metricOverrides },
    });
  }
}

interface TaskSpec {
  id: number;
  state: TaskState;
  worker: string | null;
  trace: string | null;
}

export class ConnectorBuilder {
  typeValue: ConnectorType = "source";
  stateValue: ConnectorState = "RUNNING";
  workerValue: string | null = null;
  configValue: Record<string, string> = {};
  configHashValue: string | null = null;
  taskCountValue: number | null = null;
  taskSpecs: TaskSpec[] = [];

  constructor(readonly name: string) {}

  source(): this {
    this.typeValue = "source";
    return this;
  }
  sink(): this {
    this.typeValue = "sink";
    return this;
  }
  state(s: ConnectorState): this {
    this.stateValue = s;
    return this;
  }
  paused(): this {
    return this.state("PAUSED");
  }
  stopped(): this {
    return this.state("STOPPED");
  }
  /** The worker running the connector instance (default: the worker of task 0). */
  on(worker: string | null): this {
    this.workerValue = worker;
    return this;
  }
  config(key: string, value: string): this {
    this.configValue = { ...this.configValue, [key]: value };
    return this;
  }
  exactlyOnceRequired(): this {
    return this.config("exactly.once.support", "required");
  }
  configHash(hash: string): this {
    this.configHashValue = hash;
    return this;
  }
  /** The configured task count (`info.tasks`); defaults to the number of tasks added. */
  taskCount(n: number): this {
    this.taskCountValue = n;
    return this;
  }
  /** Appends `n` tasks in `state`, on `worker` (a name, or names dealt round-robin, or null). */
  tasks(n: number, state: TaskState = "RUNNING", worker: string | readonly string[] | null = null): this {
    const workers = typeof worker === "string" || worker === null ? [worker] : worker;
    for (let i = 0; i < n; i += 1) {
      this.task(this.taskSpecs.length, state, workers[i % workers.length] ?? null);
    }
    return this;
  }
  /** Sets (adds or replaces) one task. */
  task(id: number, state: TaskState, worker: string | null, trace: string | null = null): this {
    this.taskSpecs = [...this.taskSpecs.filter((t) => t.id !== id), { id, state, worker, trace }].sort(
      (a, b) => a.id - b.id,
    );
    return this;
  }
  /** Removes one task from the status (a task missing from `expand=status`). */
  withoutTask(id: number): this {
    this.taskSpecs = this.taskSpecs.filter((t) => t.id !== id);
    return this;
  }
  /** Moves every task of `from` to `to`, optionally changing its state. */
  moveTasks(from: string, to: string | null, state?: TaskState): this {
    this.taskSpecs = this.taskSpecs.map((t) =>
      t.worker === from ? { ...t, worker: to, state: state ?? t.state } : t,
    );
    return this;
  }
  copy(): ConnectorBuilder {
    return Object.assign(new ConnectorBuilder(this.name), this, {
      configValue: { ...this.configValue },
      taskSpecs: this.taskSpecs.map((t) => ({ ...t })),
    });
  }
}

export class ClusterSnapshotBuilder {
  private readonly workers = new Map<string, WorkerBuilder>();
  private readonly connectors = new Map<string, ConnectorBuilder>();
  private readAt = 0;
  private connectorsError: string | null = null;

  constructor(private readonly name: string) {}

  withWorker(name: string, configure: (w: WorkerBuilder) => WorkerBuilder | undefined = (w) => w): this {
    const w = this.workers.get(name) ?? new WorkerBuilder(name);
    this.workers.set(name, configure(w) ?? w);
    return this;
  }
  /** Adds (or edits) `worker-1` … `worker-n`. */
  withWorkers(n: number, configure: (w: WorkerBuilder) => WorkerBuilder | undefined = (w) => w): this {
    for (let i = 1; i <= n; i += 1) this.withWorker(`worker-${i}`, configure);
    return this;
  }
  withoutWorker(name: string): this {
    this.workers.delete(name);
    return this;
  }
  withConnector(
    name: string,
    configure: (c: ConnectorBuilder) => ConnectorBuilder | undefined = (c) => c,
  ): this {
    const c = this.connectors.get(name) ?? new ConnectorBuilder(name);
    this.connectors.set(name, configure(c) ?? c);
    return this;
  }
  withoutConnector(name: string): this {
    this.connectors.delete(name);
    return this;
  }
  /** Applies `configure` to every connector. */
  withEachConnector(configure: (c: ConnectorBuilder) => ConnectorBuilder | undefined): this {
    for (const [name, c] of this.connectors) this.connectors.set(name, configure(c) ?? c);
    return this;
  }
  /** Makes `name` the leader (and no other worker). */
  leader(name: string): this {
    for (const w of this.workers.values()) w.isLeader = w.name === name;
    return this.withWorker(name, (w) => w.leader());
  }
  connectorsUnreadable(error = "no worker answered"): this {
    this.connectorsError = error;
    return this;
  }
  at(readAt: number): this {
    this.readAt = readAt;
    return this;
  }
  copy(): ClusterSnapshotBuilder {
    const b = new ClusterSnapshotBuilder(this.name);
    for (const [k, w] of this.workers) b.workers.set(k, w.copy());
    for (const [k, c] of this.connectors) b.connectors.set(k, c.copy());
    b.readAt = this.readAt;
    b.connectorsError = this.connectorsError;
    return b;
  }

  build(): ClusterSnapshot {
    const idOf = (name: string | null): string | null => {
      if (name === null) return null;
      const w = this.workers.get(name);
      return w ? workerIdOf(w.url) : name;
    };
    const connectors: ConnectorSnapshot[] = [...this.connectors.values()].map((c) => {
      const tasks: TaskSnapshot[] = c.taskSpecs.map((t) => ({
        id: t.id,
        state: t.state,
        workerId: idOf(t.worker),
        trace: t.trace,
      }));
      return {
        name: c.name,
        type: c.typeValue,
        state: c.stateValue,
        workerId: idOf(c.workerValue ?? c.taskSpecs[0]?.worker ?? null),
        configHash: c.configHashValue ?? `hash-${c.name}`,
        config: { "connector.class": "TestConnector", ...c.configValue },
        taskCount: c.taskCountValue ?? c.taskSpecs.length,
        tasks: c.stateValue === "STOPPED" ? [] : tasks,
      };
    });
    const leader = [...this.workers.values()].find((w) => w.isLeader);
    const workers: WorkerSnapshot[] = [...this.workers.values()].map((w) => {
      const workerId = workerIdOf(w.url);
      const mine = connectors.flatMap((c) =>
        c.tasks.filter((t) => t.workerId === workerId && t.state !== "UNASSIGNED"),
      );
      const myConnectors = connectors.filter((c) => c.workerId === workerId && c.state !== "STOPPED").length;
      const defaults: WorkerMetrics = {
        protocol: "sessioned",
        leaderUrl: leader ? `${leader.url}/` : null,
        epoch: 10,
        rebalancing: false,
        completedRebalances: 10,
        timeSinceLastRebalanceMs: 600_000,
        connectorCount: myConnectors,
        taskCount: mine.length,
        assignedConnectors: myConnectors,
        assignedTasks: mine.length,
      };
      return {
        name: w.name,
        url: w.url,
        workerId,
        reachable: w.reachableValue,
        error: w.errorValue,
        version: w.reachableValue ? w.versionValue : null,
        health: w.reachableValue ? w.healthValue : "unknown",
        metrics: w.hasMetrics && w.reachableValue ? { ...defaults, ...w.metricOverrides } : null,
        exactlyOnceSourceSupport: w.exactlyOnce,
      };
    });
    return {
      cluster: this.name,
      readAt: this.readAt,
      workers,
      connectors: this.connectorsError === null ? connectors : null,
      connectorsError: this.connectorsError,
    };
  }
}
