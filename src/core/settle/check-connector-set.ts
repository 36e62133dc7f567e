import { type ClusterSnapshot, type ConnectorSnapshot, taskKey } from "../snapshot.js";
import type { GateReason } from "./settle-types.js";

/** The connectors and tasks equal the baseline: none missing, none added, task counts unchanged. */
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
        message: `${b.name} has ${c.taskCount} tasks configured, ${b.taskCount} before the step`,
      });
    }
    const ids = new Set(c.tasks.map((t) => t.id));
    for (const t of b.tasks) if (!ids.has(t.id)) missingTasks.push(taskKey(b.name, t.id));
  }
  const known = new Set(before.map((c) => c.name));
  for (const c of now.filter((x) => !known.has(x.name))) {
    reasons.push({
      code: "connector-added",
      connector: c.name,
      message: `connector ${c.name} appeared during the step`,
    });
  }
  if (missingTasks.length > 0) {
    reasons.push({
      code: "task-missing",
      tasks: missingTasks,
      message: `${missingTasks.length} tasks missing from the status (${missingTasks.slice(0, 5).join(", ")})`,
    });
  }
  return reasons;
}
