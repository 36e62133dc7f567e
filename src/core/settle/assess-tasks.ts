import { type ClusterSnapshot, taskKey } from "../snapshot.js";
import type { Liveness } from "./assess-liveness.js";
import type { GateReason, TaskStateRef } from "./settle-types.js";

export interface TaskAssessment {
  /** New FAILED connectors and tasks: the gate fails. */
  readonly failures: readonly GateReason[];
  /** Tasks RUNNING before the step that are not RUNNING on a verified live worker now. */
  readonly notRunning: readonly TaskStateRef[];
  /** Of those, RUNNING on a worker id that is no configured worker. */
  readonly onUnknownWorker: readonly TaskStateRef[];
}

/**
 * Compares every task's state with the baseline (a stale RUNNING does not count:
 * docs/connect-behaviour.md#stale-running-after-a-crash).
 */
export function assessTasks(
  before: ClusterSnapshot,
  poll: ClusterSnapshot,
  liveness: Liveness,
  allowPaused: boolean,
): TaskAssessment {
  const previous = new Map<string, string>();
  const previousConnector = new Map<string, string>();
  for (const c of before.connectors ?? []) {
    previousConnector.set(c.name, c.state);
    for (const t of c.tasks) previous.set(taskKey(c.name, t.id), t.state);
  }
  const failures: GateReason[] = [];
  const notRunning: TaskStateRef[] = [];
  const onUnknownWorker: TaskStateRef[] = [];
  for (const c of poll.connectors ?? []) {
    if (c.state === "FAILED" && previousConnector.get(c.name) !== "FAILED") {
      failures.push({
        code: "connector-failed",
        connector: c.name,
        trace: null,
        message: `connector ${c.name} FAILED`,
      });
    }
    for (const t of c.tasks) {
      const key = taskKey(c.name, t.id);
      const was = previous.get(key);
      if (t.state === "FAILED" && was !== "FAILED") {
        const trace = firstLine(t.trace);
        failures.push({
          code: "task-failed",
          task: key,
          trace,
          message: `${key} FAILED${trace ? `: ${trace}` : ""}`,
        });
        continue;
      }
      if (was !== "RUNNING") continue;
      const ref: TaskStateRef = { task: key, state: t.state, workerId: t.workerId };
      if (t.state === "PAUSED" && allowPaused) continue;
      if (t.state !== "RUNNING" || t.workerId === null) {
        notRunning.push(ref);
      } else if (!liveness.known.has(t.workerId)) {
        notRunning.push(ref);
        onUnknownWorker.push(ref);
      } else if (!liveness.verified.has(t.workerId)) {
        notRunning.push(ref);
      }
    }
  }
  return { failures, notRunning, onUnknownWorker };
}

function firstLine(trace: string | null): string | null {
  if (trace === null) return null;
  const line = trace.split("\n", 1)[0]?.trim() ?? "";
  return line === "" ? null : line;
}
