import { requestRebalance } from "./group-coordinator.js";
import type { SimProtocol } from "./protocol-model.js";
import {
  connectorOfTask,
  connectorTaskKeys,
  type Member,
  type SimContext,
  taskIndexOf,
} from "./sim-context.js";
import type { StatusEntry } from "./status-store.js";
import type { TaskFlowSample } from "./task-flow.js";
import { sortNames, sortTaskKeys } from "./task-order.js";
import {
  applyTargetState,
  restartConnectorInPlace,
  restartTaskInPlace,
  startConnectors,
  stopTasks,
} from "./worker-runtime.js";

/**
 * The data behind the simulated Connect REST API and metrics (docs/connect-behaviour.md#the-rest-api, #metrics), read
 * from the model.
 */
export interface StateEntryJson {
  readonly state: string;
  readonly worker_id: string;
  readonly trace?: string;
}

export interface ConnectorStateInfo {
  readonly name: string;
  readonly connector: StateEntryJson;
  readonly tasks: (StateEntryJson & { readonly id: number })[];
  readonly type: "source" | "sink";
}

export interface ConnectorInfo {
  readonly name: string;
  readonly config: Record<string, string>;
  readonly tasks: { readonly connector: string; readonly task: number }[];
  readonly type: "source" | "sink";
}

export interface TaskInfo {
  readonly id: { readonly connector: string; readonly task: number };
  readonly config: Record<string, string>;
}

export type RestartOutcome =
  | { readonly kind: "not-found" }
  | { readonly kind: "not-assigned" }
  | { readonly kind: "restarted" }
  | { readonly kind: "accepted"; readonly body: ConnectorStateInfo };

export interface WorkerRestView {
  readonly name: string;
  readonly version: string;
  readonly url: string;
  readonly running: boolean;
  /** The worker has completed a rebalance since it started (its herder is ready). */
  readonly ready: boolean;
  readonly protocol: SimProtocol | null;
  readonly leaderUrl: string | null;
  readonly epoch: number;
  readonly rebalancing: boolean;
  readonly completedRebalances: number;
  readonly timeSinceLastRebalanceMs: number;
  readonly connectorCount: number;
  readonly taskCount: number;
  /** Connect's app-info `start-time-ms` of the running process (epoch ms of the simulation's clock). */
  readonly startTimeMs: number | null;
  /** The per-task metrics of the task instances this worker runs or holds paused. */
  readonly taskFlow: readonly TaskFlowView[];
}

export interface TaskFlowView extends TaskFlowSample {
  readonly connector: string;
  readonly task: number;
  readonly kind: "source" | "sink";
  /** The task's state on this worker, lower case as Connect's `status` metric says it. */
  readonly status: string;
}

export interface ConnectView {
  connectorNames(): string[];
  info(name: string): ConnectorInfo | null;
  status(name: string): ConnectorStateInfo | null;
  config(name: string): Record<string, string> | null;
  tasks(name: string): TaskInfo[] | null;
  restart(name: string, includeTasks: boolean, onlyFailed: boolean, legacy: boolean): RestartOutcome;
  /** `POST /connectors/{name}/tasks/{id}/restart`: restarts the task where it runs. */
  restartTask(name: string, id: number): "restarted" | "not-found" | "not-assigned";
  pause(name: string): boolean;
  resume(name: string): boolean;
  stop(name: string): boolean;
  rebalancing(): boolean;
  worker(name: string): WorkerRestView | null;
}

function entryJson(e: StatusEntry | undefined): StateEntryJson {
  const base = { state: e?.state ?? "UNASSIGNED", worker_id: e?.workerId ?? "" };
  return e?.trace ? { ...base, trace: e.trace } : base;
}

export function createConnectView(ctx: SimContext): ConnectView {
  const live = (): Member[] => ctx.group.members.filter((m) => m.alive);

  const status = (name: string): ConnectorStateInfo | null => {
    const c = ctx.connectors.get(name);
    const cs = ctx.status.getConnector(name);
    if (!c || !cs) return null;
    const tasks = connectorTaskKeys(c).flatMap((key) => {
      const ts = ctx.status.getTask(key);
      return ts ? [{ id: taskIndexOf(key), ...entryJson(ts) }] : [];
    });
    return { name, connector: entryJson(cs), tasks, type: c.type };
  };

  const setTarget = (name: string, target: "STARTED" | "PAUSED" | "STOPPED"): boolean => {
    const c = ctx.connectors.get(name);
    if (!c) return false;
    const wasStopped = c.target === "STOPPED";
    const before = connectorTaskKeys(c);
    c.target = target;
    const now = ctx.scheduler.now();
    if (target === "STOPPED" && !wasStopped) {
      for (const t of before) {
        ctx.ledger.taskDeleted(t, now);
        ctx.status.deleteTask(t);
      }
      for (const m of live()) stopTasks(ctx, m, before, { writeStatus: false, workerStaysUp: false });
      const holder = live().find((m) => m.connectors.has(name));
      ctx.status.putConnector(name, {
        state: "STOPPED",
        workerId: holder?.worker.workerId ?? ctx.status.getConnector(name)?.workerId ?? null,
        trace: null,
        generation: ctx.group.generation,
      });
      requestRebalance(ctx);
      return true;
    }
    if (wasStopped && target !== "STOPPED") {
      for (const t of connectorTaskKeys(c)) ctx.ledger.taskConfigured(t);
      for (const m of live()) {
        if (m.connectors.has(name)) {
          m.connectors.delete(name);
          startConnectors(ctx, m, [name]);
        }
      }
      requestRebalance(ctx);
      return true;
    }
    applyTargetState(ctx, name);
    return true;
  };

  const taskFlowOf = (m: Member): TaskFlowView[] => {
    const now = ctx.scheduler.now();
    const out: TaskFlowView[] = [];
    for (const key of sortTaskKeys(m.tasks.keys())) {
      const item = m.tasks.get(key);
      const sample = ctx.flow.sample(key, now);
      const connector = ctx.connectors.get(connectorOfTask(key));
      if (!item || !sample || !connector) continue;
      out.push({
        ...sample,
        connector: connector.name,
        task: taskIndexOf(key),
        kind: connector.type,
        status: item.state.toLowerCase(),
      });
    }
    return out;
  };

  return {
    connectorNames: () => sortNames(ctx.connectors.keys()),
    info(name) {
      const c = ctx.connectors.get(name);
      if (!c) return null;
      const tasks = connectorTaskKeys(c).map((k) => ({ connector: name, task: taskIndexOf(k) }));
      return { name, config: { ...c.config }, tasks, type: c.type };
    },
    status,
    config: (name) => {
      const c = ctx.connectors.get(name);
      return c ? { ...c.config } : null;
    },
    tasks(name) {
      const c = ctx.connectors.get(name);
      if (!c) return null;
      const taskClass = c.type === "source" ? "MockSourceTask" : "MockSinkTask";
      return connectorTaskKeys(c).map((k) => ({
        id: { connector: name, task: taskIndexOf(k) },
        config: { ...c.config, "task.class": `org.apache.kafka.connect.tools.${taskClass}` },
      }));
    },
    restartTask(name, id) {
      const c = ctx.connectors.get(name);
      if (!c || !connectorTaskKeys(c).some((k) => taskIndexOf(k) === id)) return "not-found";
      for (const m of live()) {
        for (const key of m.tasks.keys()) {
          if (connectorOfTask(key) === name && taskIndexOf(key) === id) {
            restartTaskInPlace(ctx, m, key);
            return "restarted";
          }
        }
      }
      return "not-assigned";
    },
    restart(name, includeTasks, onlyFailed, legacy) {
      const c = ctx.connectors.get(name);
      if (!c) return { kind: "not-found" };
      if (legacy) {
        const holder = live().find((m) => m.connectors.has(name));
        if (!holder) return { kind: "not-assigned" };
        restartConnectorInPlace(ctx, holder, name);
        return { kind: "restarted" };
      }
      const current = status(name);
      if (!current) return { kind: "not-found" };
      const restartConnector = !onlyFailed || current.connector.state === "FAILED";
      const taskIds = new Set(
        includeTasks ? current.tasks.filter((t) => !onlyFailed || t.state === "FAILED").map((t) => t.id) : [],
      );
      // The plan shows RESTARTING for everything planned; each worker then restarts only what it holds.
      const body: ConnectorStateInfo = {
        ...current,
        connector: restartConnector ? { ...current.connector, state: "RESTARTING" } : current.connector,
        tasks: current.tasks.map((t) => (taskIds.has(t.id) ? { ...t, state: "RESTARTING" } : t)),
      };
      for (const m of live()) {
        if (restartConnector && m.connectors.has(name)) restartConnectorInPlace(ctx, m, name);
        for (const key of sortTaskKeys(m.tasks.keys())) {
          if (connectorOfTask(key) === name && taskIds.has(taskIndexOf(key))) restartTaskInPlace(ctx, m, key);
        }
      }
      return { kind: "accepted", body };
    },
    pause: (name) => setTarget(name, "PAUSED"),
    resume: (name) => setTarget(name, "STARTED"),
    stop: (name) => setTarget(name, "STOPPED"),
    rebalancing: () => ctx.group.rebalance !== null,
    worker(name) {
      const w = ctx.workers.find((x) => x.name === name);
      if (!w) return null;
      const m = w.member;
      const leader = ctx.group.leader;
      return {
        name,
        version: w.version,
        url: w.url,
        running: w.state === "running",
        ready: m?.lastGeneration !== null && m?.lastGeneration !== undefined,
        protocol: m?.lastProtocol ?? null,
        leaderUrl: leader && m?.lastGeneration ? `${leader.worker.url}/` : null,
        epoch: m?.lastGeneration ?? -1,
        rebalancing: ctx.group.rebalance !== null && m !== null,
        completedRebalances: m?.completedRebalances ?? 0,
        startTimeMs: w.startTimeMs,
        timeSinceLastRebalanceMs:
          m?.lastRebalanceAt === null || m === null
            ? Number.POSITIVE_INFINITY
            : ctx.scheduler.now() - m.lastRebalanceAt,
        connectorCount: m?.connectors.size ?? 0,
        taskCount: m?.tasks.size ?? 0,
        taskFlow: m === null ? [] : taskFlowOf(m),
      };
    },
  };
}
