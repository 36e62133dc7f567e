import type { ControlResult } from "./control-result.js";
import { requestRebalance } from "./group-coordinator.js";
import { connectorTaskKeys, type SimContext } from "./sim-context.js";
import type { ConnectorChange } from "./sim-types.js";
import { restartTaskInPlace, stopTasks } from "./worker-runtime.js";

/**
 * The control API's operations on connectors and tasks: a connector reconfigured (its tasks restarted with the new
 * config where they run, removed ones stopped, a rebalance for the new task set), a task stalled or resumed, record
 * failures added to a running task.
 */
export function updateConnector(ctx: SimContext, name: string, change: ConnectorChange): ControlResult {
  const c = ctx.connectors.get(name);
  if (!c) return { kind: "not-found", message: `unknown connector ${name}` };
  const before = new Set(connectorTaskKeys(c));
  const tasksMax = change.tasksMax ?? Number(change.config?.["tasks.max"] ?? c.tasksMax);
  if (!Number.isInteger(tasksMax) || tasksMax < 0) return { kind: "invalid", message: "bad tasks.max" };
  c.config = { ...c.config, ...change.config, "tasks.max": String(tasksMax) };
  c.tasksMax = tasksMax;
  const after = new Set(connectorTaskKeys(c));
  const now = ctx.scheduler.now();
  const removed = [...before].filter((t) => !after.has(t));
  for (const t of removed) {
    ctx.ledger.taskDeleted(t, now);
    ctx.status.deleteTask(t);
  }
  for (const t of after) ctx.ledger.taskConfigured(t);
  for (const m of ctx.group.members) {
    if (!m.alive) continue;
    stopTasks(ctx, m, removed, { writeStatus: false, workerStaysUp: false });
    // New task configs: the tasks that stay are restarted with them where they run.
    for (const t of [...m.tasks.keys()]) if (after.has(t)) restartTaskInPlace(ctx, m, t);
  }
  requestRebalance(ctx);
  return { kind: "ok" };
}

/** A task stays RUNNING and moves nothing for `ms` (null: until `resumeTask`). */
export function stallTask(
  ctx: SimContext,
  connector: string,
  task: number,
  ms: number | null,
): ControlResult {
  const key = configuredTask(ctx, connector, task);
  if (key === null) return noTask(connector, task);
  const now = ctx.scheduler.now();
  ctx.flow.stall(key, ms === null ? null : now + ms, now);
  return { kind: "ok" };
}

export function resumeTask(ctx: SimContext, connector: string, task: number): ControlResult {
  const key = configuredTask(ctx, connector, task);
  if (key === null) return noTask(connector, task);
  ctx.flow.resume(key, ctx.scheduler.now());
  return { kind: "ok" };
}

/** Adds record failures to a running task's `total-record-failures`. */
export function failRecords(ctx: SimContext, connector: string, task: number, count: number): ControlResult {
  const key = configuredTask(ctx, connector, task);
  if (key === null) return noTask(connector, task);
  return ctx.flow.failRecords(key, count, ctx.scheduler.now())
    ? { kind: "ok" }
    : { kind: "conflict", message: `${key} is not running` };
}

function configuredTask(ctx: SimContext, connector: string, task: number): string | null {
  const c = ctx.connectors.get(connector);
  return c && Number.isInteger(task) && task >= 0 && task < c.tasksMax ? `${connector}/${task}` : null;
}

function noTask(connector: string, task: number): ControlResult {
  return { kind: "not-found", message: `unknown task ${connector}/${task}` };
}
