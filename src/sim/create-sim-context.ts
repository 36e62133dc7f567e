import { createLedger } from "./ledger.js";
import { createPrng } from "./prng.js";
import { createScheduler } from "./scheduler.js";
import {
  type ConnectorModel,
  connectorTaskKeys,
  type ResolvedSimOptions,
  type SimContext,
  type WorkerModel,
} from "./sim-context.js";
import type { AssignorFactory, ConnectorSpec } from "./sim-types.js";
import { createStatusStore } from "./status-store.js";
import { createTaskFlow } from "./task-flow.js";

/**
 * The simulator's model at its start: the scheduler (virtual or real time), the workers (stopped, about to start),
 * the connectors (`connectorSpecs`, or `connectors` of them alternately source and sink) and an empty group. Time
 * starts at `startAt`, else at 0 in virtual time and now in real time.
 */
export function createSimContext(options: ResolvedSimOptions, assignorFactory: AssignorFactory): SimContext {
  const startAt = options.startAt ?? (options.virtualTime ? 0 : Date.now());
  const scheduler = createScheduler({
    mode: options.virtualTime ? { kind: "virtual" } : { kind: "real", speed: options.speed },
    startAt,
  });
  let token = 0;
  const ctx: SimContext = {
    options: { ...options, startAt },
    scheduler,
    prng: createPrng(options.seed),
    ledger: createLedger({ keepEntries: true }),
    flow: createTaskFlow(),
    status: createStatusStore(),
    workers: makeWorkers(options, startAt),
    connectors: new Map(makeConnectors(options).map((c) => [c.name, c])),
    group: {
      members: [],
      generation: 0,
      protocol: null,
      leader: null,
      assignors: null,
      rebalance: null,
      delayTimer: null,
      delayDeadline: null,
      rebalances: 0,
      eagerRebalances: 0,
    },
    listeners: new Set(),
    assignorFactory,
    nextToken: () => {
      token += 1;
      return token;
    },
  };
  for (const c of ctx.connectors.values()) for (const t of connectorTaskKeys(c)) ctx.ledger.taskConfigured(t);
  return ctx;
}

function makeWorkers(options: ResolvedSimOptions, startAt: number): WorkerModel[] {
  return Array.from({ length: options.workers }, (_, index) => {
    const name = `worker-${index + 1}`;
    const o = options.workerOverrides?.[name] ?? {};
    const port = options.ports?.[index] ?? 8083 + index;
    return {
      name,
      index,
      workerId: `${options.host}:${port}`,
      url: `http://${options.host}:${port}`,
      version: o.version ?? options.version,
      connectProtocol: o.connectProtocol === undefined ? options.connectProtocol : o.connectProtocol,
      delayMs: o.delayMs ?? options.delayMs,
      restartMs: o.restartMs ?? options.restartMs,
      state: "stopped",
      member: null,
      pendingStart: null,
      faults: { restStatus: null, hangMs: null },
      starts: 0,
      // The initial workers start with the simulation.
      startTimeMs: startAt,
    };
  });
}

function makeConnectors(options: ResolvedSimOptions): ConnectorModel[] {
  const specs: ConnectorSpec[] = options.connectorSpecs
    ? [...options.connectorSpecs]
    : Array.from({ length: options.connectors }, (_, i) => ({
        name: `conn-${String(i + 1).padStart(2, "0")}`,
        type: i % 2 === 0 ? ("source" as const) : ("sink" as const),
        tasksMax: options.tasksPerConnector,
      }));
  return specs.map((s) => ({
    name: s.name,
    type: s.type,
    tasksMax: s.tasksMax,
    target: "STARTED",
    config: {
      name: s.name,
      "connector.class":
        s.type === "source"
          ? "org.apache.kafka.connect.tools.MockSourceConnector"
          : "org.apache.kafka.connect.tools.MockSinkConnector",
      "tasks.max": String(s.tasksMax),
      ...(s.type === "sink" ? { topics: `topic-${s.name}` } : {}),
      ...s.config,
    },
  }));
}
