import type { Assignor } from "./assignor/types.js";
import type { SimProtocol, SimProtocolSetting } from "./protocol-model.js";

/**
 * Builds an assignor for a leader; a new leader gets fresh instances (docs/connect-behaviour.md#the-leader).
 * Same shape as `createAssignor` of ./assignor/create-assignor.ts (the default).
 */
export type AssignorFactory = (options: {
  readonly protocol: SimProtocol;
  readonly leaderVersion: string;
  readonly maxDelayMs: number;
}) => Assignor;

export interface WorkerOverride {
  readonly version?: string | undefined;
  /** `connect.protocol`; null = the version's default. */
  readonly connectProtocol?: SimProtocolSetting | undefined;
  /** This worker's `scheduled.rebalance.max.delay.ms`. */
  readonly delayMs?: number | undefined;
  /** Base restart (process start) time of this worker. */
  readonly restartMs?: number | undefined;
}

export interface ConnectorSpec {
  readonly name: string;
  readonly type: "source" | "sink";
  readonly tasksMax: number;
  readonly config?: Readonly<Record<string, string>> | undefined;
}

export interface SimClusterOptions {
  readonly workers: number;
  /** Number of generated connectors (`conn-01`…), ignored when `connectorSpecs` is given. */
  readonly connectors: number;
  readonly tasksPerConnector: number;
  readonly connectorSpecs?: readonly ConnectorSpec[];
  readonly version: string;
  readonly connectProtocol: SimProtocolSetting;
  /** `scheduled.rebalance.max.delay.ms` of every worker (overridable per worker). */
  readonly delayMs: number;
  readonly restartMs: number;
  /** Relative jitter of a restart time, e.g. 0.1 = ±10 %, drawn from the seeded PRNG. */
  readonly restartJitter: number;
  readonly taskStartMs: number;
  /** Records per second each task moves (a connector's `sim.throughput` overrides it; 0 = idle). */
  readonly throughput: number;
  readonly sessionTimeoutMs: number;
  readonly rebalanceMs: number;
  readonly seed: number;
  readonly virtualTime: boolean;
  readonly speed: number;
  readonly host: string;
  /** Simulated time at creation (default 0 in virtual time, Date.now() in real time). */
  readonly startAt?: number;
  /** Per-worker overrides by worker name ("worker-1"). */
  readonly workerOverrides?: Readonly<Record<string, WorkerOverride>>;
  /** Ports of the workers' REST servers, by index; default 8083 + index (no server is opened by the cluster). */
  readonly ports?: readonly number[];
  /** Default: the real assignors (`createAssignor`). */
  readonly assignorFactory?: AssignorFactory;
}

export type WorkerState = "running" | "stopped" | "starting";
export type StopMode = "graceful" | "crash";

export interface WorkerStateView {
  readonly name: string;
  readonly workerId: string;
  readonly url: string;
  readonly version: string;
  readonly connectProtocol: SimProtocol;
  readonly state: WorkerState;
  /** The running process has joined the group since it started (its first rebalance completed). */
  readonly joined: boolean;
  readonly connectors: string[];
  readonly tasks: string[];
}

export interface TaskStateView {
  readonly id: string;
  readonly state: string;
  readonly workerId: string | null;
}

/** What the verifiable sinks saw (the lab's sink connector; the simulator has none). */
export interface SinkFlowState {
  /** Records the sinks consumed (each sink connector counts its own), redeliveries apart. */
  readonly records: number;
  /** A source task's sequence number seen again at another offset: written twice to the log. */
  readonly duplicates: number;
  /** Sequence numbers a sink never saw below the highest it saw of that source task. */
  readonly missing: number;
  /** The same offset given to a sink again (its own at-least-once after a restart): not a duplicate in the log. */
  readonly redelivered: number;
  /** By source task ("conn-01/3"). */
  readonly perTask: Record<string, { records: number; duplicates: number; missing: number }>;
}

/** The data the tasks really moved, from the cluster's own ground truth (not from metrics). */
export interface DataFlowState {
  /** The largest of `perTask`. */
  readonly maxGapMs: number;
  /** Each task's largest gap in the data it moved (a source: records the broker acknowledged; a sink: batches). */
  readonly perTask: Record<string, number>;
  /** Tasks held in a stall: RUNNING, moving nothing (`POST /sim/tasks/{connector}/{task}/stall`). */
  readonly stalled: string[];
  readonly sink: SinkFlowState | null;
}

/** The exact shape of `GET /sim/state` (DESIGN §4). */
export interface SimState {
  readonly now: number;
  readonly generation: number;
  readonly protocol: SimProtocol;
  readonly leader: string | null;
  readonly workers: WorkerStateView[];
  readonly heldTasks: string[];
  readonly delayDeadline: number | null;
  readonly tasks: TaskStateView[];
  readonly counters: {
    readonly rebalances: number;
    readonly eagerRebalances: number;
    readonly taskMoves: number;
    readonly taskInterruptions: number;
    readonly taskDowntimeMs: number;
    readonly restarts: Record<string, number>;
  };
  readonly dataFlow: DataFlowState;
}

export interface WorkerFaults {
  /** Every Connect REST call of this worker answers with this status. */
  readonly restStatus: number | null;
  /** Every Connect REST call of this worker answers after this many real milliseconds. */
  readonly hangMs: number | null;
}

export interface ConnectorChange {
  readonly tasksMax?: number;
  readonly config?: Readonly<Record<string, string>>;
}

export interface RestartOptions {
  readonly version?: string;
  /** How long the worker stays down before it starts again; "never" = it does not come back. */
  readonly downMs?: number | "never";
}
