import { taskKey } from "../core/snapshot.js";
import type { Assignor } from "./assignor/types.js";
import type { Ledger } from "./ledger.js";
import type { Prng } from "./prng.js";
import type { SimProtocol, SimProtocolSetting } from "./protocol-model.js";
import type { EventHandle, Scheduler } from "./scheduler.js";
import type { AssignorFactory, SimClusterOptions, WorkerFaults, WorkerState } from "./sim-types.js";
import type { StatusStore } from "./status-store.js";
import type { TaskFlow } from "./task-flow.js";

/** The simulator's mutable model, shared by the group coordinator and the worker runtime. Internal to src/sim. */
export interface ConnectorModel {
  readonly name: string;
  readonly type: "source" | "sink";
  config: Record<string, string>;
  tasksMax: number;
  target: "STARTED" | "PAUSED" | "STOPPED";
}

export interface RunItem {
  state: "starting" | "RUNNING" | "FAILED" | "PAUSED";
  token: number;
  /** When it became RUNNING (absent while starting). */
  runningSince?: number;
}

export interface Member {
  readonly memberId: string;
  readonly worker: WorkerModel;
  /** False once crashed: still in the group until the session timeout expires it. */
  alive: boolean;
  readonly connectors: Map<string, RunItem>;
  readonly tasks: Map<string, RunItem>;
  lastProtocol: SimProtocol | null;
  lastGeneration: number | null;
  completedRebalances: number;
  lastRebalanceAt: number | null;
  expiry: EventHandle | null;
}

export interface WorkerModel {
  readonly name: string;
  readonly index: number;
  readonly workerId: string;
  readonly url: string;
  version: string;
  connectProtocol: SimProtocolSetting;
  delayMs: number;
  restartMs: number;
  state: WorkerState;
  /** The current process's group member (null while stopped or starting). */
  member: Member | null;
  pendingStart: EventHandle | null;
  faults: WorkerFaults;
  starts: number;
  /** When the current process started (Connect's app-info `start-time-ms`); null while stopped. */
  startTimeMs: number | null;
}

export interface RebalanceInProgress {
  completion: EventHandle | null;
  stopTheWorld: boolean;
  /** Waiting for crashed members to be expired before the rebalance can complete. */
  waiting: boolean;
}

export interface GroupState {
  readonly members: Member[];
  generation: number;
  protocol: SimProtocol | null;
  leader: Member | null;
  assignors: { readonly incremental: Assignor; readonly eager: Assignor } | null;
  rebalance: RebalanceInProgress | null;
  delayTimer: EventHandle | null;
  delayDeadline: number | null;
  rebalances: number;
  eagerRebalances: number;
}

export type SimEvent =
  | { readonly kind: "worker-up"; readonly worker: string }
  | { readonly kind: "worker-down"; readonly worker: string };

export type ResolvedSimOptions = Omit<SimClusterOptions, "assignorFactory">;

export interface SimContext {
  readonly options: ResolvedSimOptions;
  readonly scheduler: Scheduler;
  readonly prng: Prng;
  readonly ledger: Ledger;
  /** What each task moves (per-task metrics) and the ground truth of its data-flow gaps. */
  readonly flow: TaskFlow;
  readonly status: StatusStore;
  readonly workers: readonly WorkerModel[];
  readonly connectors: Map<string, ConnectorModel>;
  readonly group: GroupState;
  readonly listeners: Set<(event: SimEvent) => void>;
  readonly assignorFactory: AssignorFactory;
  nextToken(): number;
}

export function connectorTaskKeys(connector: ConnectorModel): string[] {
  if (connector.target === "STOPPED") return [];
  const keys: string[] = [];
  for (let i = 0; i < connector.tasksMax; i += 1) keys.push(taskKey(connector.name, i));
  return keys;
}

/** "conn-01/3" → "conn-01". */
export function connectorOfTask(key: string): string {
  const slash = key.lastIndexOf("/");
  return slash < 0 ? key : key.slice(0, slash);
}

export function taskIndexOf(key: string): number {
  return Number(key.slice(key.lastIndexOf("/") + 1));
}

export function configuredTasks(ctx: SimContext): string[] {
  const out: string[] = [];
  for (const c of ctx.connectors.values()) out.push(...connectorTaskKeys(c));
  return out;
}

export function emit(ctx: SimContext, event: SimEvent): void {
  for (const listener of ctx.listeners) listener(event);
}
