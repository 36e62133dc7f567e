import { versionMatches } from "../core/version.js";
import { connectorOfTask, type Member, type SimContext } from "./sim-context.js";

/**
 * What a worker does with the work it is assigned: start tasks (taskStartMs to RUNNING, or FAILED on a faulty version),
 * stop them (writing UNASSIGNED on a graceful stop, nothing on a crash: docs/connect-behaviour.md#task-statuses),
 * pause, resume and restart them.
 */
const FAIL_ON_VERSION_KEY = "sim.fail.on.version";
/** A connector's records per second per task (default: the cluster's `throughput`); 0 = idle. */
const THROUGHPUT_KEY = "sim.throughput";
/** On a worker of this version the connector's tasks run but move a tenth of their records (a slow version). */
const SLOW_ON_VERSION_KEY = "sim.slow.on.version";
const SLOW_VERSION_SHARE = 0.1;

function flowOf(ctx: SimContext, key: string, member: Member): { kind: "source" | "sink"; rate: number } {
  const connector = ctx.connectors.get(connectorOfTask(key));
  const configured = Number(connector?.config[THROUGHPUT_KEY]);
  const rate = Number.isFinite(configured) && configured >= 0 ? configured : ctx.options.throughput;
  const slowOn = connector?.config[SLOW_ON_VERSION_KEY];
  const slow = slowOn !== undefined && versionMatches(member.worker.version, slowOn);
  return { kind: connector?.type ?? "source", rate: slow ? rate * SLOW_VERSION_SHARE : rate };
}

function flowRunning(ctx: SimContext, member: Member, key: string, at: number, fresh: boolean): void {
  const { kind, rate } = flowOf(ctx, key, member);
  ctx.flow.running(key, kind, rate, at, fresh);
}

/**
 * A task a worker's graceful shutdown stops this soon after it started keeps its RUNNING status: its UNASSIGNED is
 * lost. On real 3.9.1 and 4.1.1 workers every graceful stop 1.1 s to 6.5 s after the tasks started (48 of 48, tasks
 * handed back at a delay's deadline) left them a stale RUNNING; tasks that had run for minutes got their UNASSIGNED
 * (docs/connect-behaviour.md#stale-running-after-a-graceful-stop).
 */
export const STATUS_LOST_WITHIN_MS = 7_000;

export interface StopOptions {
  /** Graceful shutdown or revocation: write UNASSIGNED with this worker's id. False on a crash. */
  readonly writeStatus: boolean;
  /** The worker's own graceful shutdown (a task it started moments ago keeps its RUNNING, see above). */
  readonly shutdown?: boolean;
  /** The worker process stays up (revocation, stop-the-world): a stop of a RUNNING task is an interruption. */
  readonly workerStaysUp: boolean;
}

function failureTrace(version: string): string {
  return (
    `org.apache.kafka.connect.errors.ConnectException: simulated failure on version ${version}\n` +
    "\tat org.apache.kafka.connect.runtime.WorkerTask.doRun(WorkerTask.java:202)"
  );
}

function finishTaskStart(ctx: SimContext, member: Member, key: string, token: number): void {
  const item = member.tasks.get(key);
  if (!item || item.token !== token || !member.alive) return;
  const now = ctx.scheduler.now();
  const worker = member.worker;
  const connector = ctx.connectors.get(connectorOfTask(key));
  const generation = ctx.group.generation;
  const failOn = connector?.config[FAIL_ON_VERSION_KEY];
  if (failOn !== undefined && versionMatches(worker.version, failOn)) {
    item.state = "FAILED";
    ctx.status.putTask(key, {
      state: "FAILED",
      workerId: worker.workerId,
      trace: failureTrace(worker.version),
      generation,
    });
    ctx.ledger.taskNotRunning(key, "FAILED", worker.name, now);
    return;
  }
  if (connector?.target === "PAUSED") {
    item.state = "PAUSED";
    ctx.status.putTask(key, { state: "PAUSED", workerId: worker.workerId, trace: null, generation });
    ctx.ledger.taskNotRunning(key, "PAUSED", worker.name, now);
    flowRunning(ctx, member, key, now, true);
    ctx.flow.halted(key, now, false);
    return;
  }
  item.state = "RUNNING";
  item.runningSince = now;
  ctx.status.putTask(key, { state: "RUNNING", workerId: worker.workerId, trace: null, generation });
  ctx.ledger.taskRunning(key, worker.name, now);
  flowRunning(ctx, member, key, now, true);
}

function finishConnectorStart(ctx: SimContext, member: Member, name: string, token: number): void {
  const item = member.connectors.get(name);
  const connector = ctx.connectors.get(name);
  if (!item || item.token !== token || !member.alive || !connector) return;
  const state = connector.target === "STARTED" ? "RUNNING" : connector.target;
  item.state = state === "STOPPED" ? "PAUSED" : state;
  ctx.status.putConnector(name, {
    state,
    workerId: member.worker.workerId,
    trace: null,
    generation: ctx.group.generation,
  });
}

export function startTasks(ctx: SimContext, member: Member, keys: Iterable<string>): void {
  const batch: [string, number][] = [];
  const now = ctx.scheduler.now();
  for (const key of keys) {
    const token = ctx.nextToken();
    member.tasks.set(key, { state: "starting", token });
    ctx.ledger.taskStarting(key, member.worker.name, now);
    batch.push([key, token]);
  }
  if (batch.length === 0) return;
  ctx.scheduler.after(ctx.options.taskStartMs, () => {
    for (const [key, token] of batch) finishTaskStart(ctx, member, key, token);
  });
}

export function startConnectors(ctx: SimContext, member: Member, names: Iterable<string>): void {
  const batch: [string, number][] = [];
  for (const name of names) {
    const token = ctx.nextToken();
    member.connectors.set(name, { state: "starting", token });
    batch.push([name, token]);
  }
  if (batch.length === 0) return;
  ctx.scheduler.after(ctx.options.taskStartMs, () => {
    for (const [name, token] of batch) finishConnectorStart(ctx, member, name, token);
  });
}

export function stopTasks(
  ctx: SimContext,
  member: Member,
  keys: Iterable<string>,
  options: StopOptions,
): void {
  const now = ctx.scheduler.now();
  const worker = member.worker;
  for (const key of keys) {
    const item = member.tasks.get(key);
    if (!member.tasks.delete(key)) continue;
    ctx.ledger.taskStopped(key, worker.name, now, options.workerStaysUp);
    ctx.flow.halted(key, now, true);
    const lost =
      options.shutdown === true &&
      item?.runningSince !== undefined &&
      now - item.runningSince < STATUS_LOST_WITHIN_MS;
    if (options.writeStatus && !lost && ctx.status.getTask(key)) {
      ctx.status.putTask(key, {
        state: "UNASSIGNED",
        workerId: worker.workerId,
        trace: null,
        generation: ctx.group.generation,
      });
    }
  }
}

export function stopConnectors(
  ctx: SimContext,
  member: Member,
  names: Iterable<string>,
  options: StopOptions,
): void {
  for (const name of names) {
    if (!member.connectors.delete(name)) continue;
    const connector = ctx.connectors.get(name);
    if (options.writeStatus && connector && connector.target !== "STOPPED") {
      ctx.status.putConnector(name, {
        state: "UNASSIGNED",
        workerId: member.worker.workerId,
        trace: null,
        generation: ctx.group.generation,
      });
    }
  }
}

export function stopAllWork(ctx: SimContext, member: Member, options: StopOptions): void {
  stopTasks(ctx, member, [...member.tasks.keys()], options);
  stopConnectors(ctx, member, [...member.connectors.keys()], options);
}

/** Restarts a held task in place (REST restart, new task config): RESTARTING, then started again. */
export function restartTaskInPlace(ctx: SimContext, member: Member, key: string): void {
  if (!member.tasks.has(key)) return;
  stopTasks(ctx, member, [key], { writeStatus: false, workerStaysUp: true });
  ctx.status.putTask(key, {
    state: "RESTARTING",
    workerId: member.worker.workerId,
    trace: null,
    generation: ctx.group.generation,
  });
  startTasks(ctx, member, [key]);
}

export function restartConnectorInPlace(ctx: SimContext, member: Member, name: string): void {
  if (!member.connectors.has(name)) return;
  member.connectors.delete(name);
  ctx.status.putConnector(name, {
    state: "RESTARTING",
    workerId: member.worker.workerId,
    trace: null,
    generation: ctx.group.generation,
  });
  startConnectors(ctx, member, [name]);
}

/** Applies a connector's new target state (pause/resume) to the instances members hold. */
export function applyTargetState(ctx: SimContext, connectorName: string): void {
  const connector = ctx.connectors.get(connectorName);
  if (!connector) return;
  const now = ctx.scheduler.now();
  const generation = ctx.group.generation;
  for (const member of ctx.group.members) {
    if (!member.alive) continue;
    const workerId = member.worker.workerId;
    for (const [key, item] of member.tasks) {
      if (connectorOfTask(key) !== connectorName) continue;
      if (connector.target === "PAUSED" && item.state === "RUNNING") {
        item.state = "PAUSED";
        ctx.status.putTask(key, { state: "PAUSED", workerId, trace: null, generation });
        ctx.ledger.taskNotRunning(key, "PAUSED", member.worker.name, now);
        ctx.flow.halted(key, now, false);
      } else if (connector.target === "STARTED" && item.state === "PAUSED") {
        item.state = "RUNNING";
        ctx.status.putTask(key, { state: "RUNNING", workerId, trace: null, generation });
        ctx.ledger.taskRunning(key, member.worker.name, now);
        flowRunning(ctx, member, key, now, false);
      }
    }
    const held = member.connectors.get(connectorName);
    if (held && held.state !== "starting") {
      const state = connector.target === "STARTED" ? "RUNNING" : connector.target;
      held.state = state === "RUNNING" ? "RUNNING" : "PAUSED";
      ctx.status.putConnector(connectorName, { state, workerId, trace: null, generation });
    }
  }
}
