import { plural } from "../plural.js";
import { type ClusterSnapshot, type ConnectorSnapshot, taskKey } from "../snapshot.js";
import type { GateReason } from "./settle-types.js";

/** The connectors and tasks equal the baseline: none missing, task counts unchanged, new ones running. */
export function checkConnectorSet(
  before: readonly ConnectorSnapshot[],
  now: NonNullable<ClusterSnapshot["connectors"]>,
): GateReason[] {
  const reasons: GateReason[] = [];
  const byName = new Map(now.map((c) => [c.name, c]));
  const missingTasks: string[] = [];
  for (const b of before) {
    const c = byName.get(b.name);
    if (!c) {
      reasons.push({ code: "connector-missing", connector: b.name, message: `connector ${b.name} is gone` });
      continue;
    }
    if (c.taskCount !== b.taskCount) {
      reasons.push({
        code: "task-count-changed",
        connector: b.name,
        before: b.taskCount,
        now: c.taskCount,
        message: `${b.name} has ${plural(c.taskCount, "task")} configured, ${b.taskCount} before the step`,
      });
    }
    if (!sameTaskIds(b.tasks, c.tasks)) {
      const ids = new Set(c.tasks.map((t) => t.id));
      for (const t of b.tasks) if (!ids.has(t.id)) missingTasks.push(taskKey(b.name, t.id));
    }
  }
  const known = new Set(before.map((c) => c.name));
  // A connector created during the step (the config freeze asks about it before the next restart) only holds the
  // gate until its own tasks run.
  const settled = (c: ConnectorSnapshot) =>
    c.tasks.every((t) => t.state === "RUNNING" || t.state === "PAUSED");
  for (const c of now.filter((x) => !known.has(x.name) && !settled(x))) {
    reasons.push({
      code: "connector-added",
      connector: c.name,
      message: `connector ${c.name} appeared during the step and its tasks are not all RUNNING yet`,
    });
  }
  if (missingTasks.length > 0) {
    reasons.push({
      code: "task-missing",
      tasks: missingTasks,
      message: `${plural(missingTasks.length, "task")} missing from the status (${missingTasks.slice(0, 5).join(", ")})`,
    });
  }
  return reasons;
}

/** The common case without a Set per connector: the same task ids in the same order. */
function sameTaskIds(before: ConnectorSnapshot["tasks"], now: ConnectorSnapshot["tasks"]): boolean {
  if (before.length !== now.length) return false;
  for (let i = 0; i < before.length; i++) if (before[i]?.id !== now[i]?.id) return false;
  return true;
}
