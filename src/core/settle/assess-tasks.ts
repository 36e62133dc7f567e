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
  const previous = baselineIndex(before);
  const failures: GateReason[] = [];
  const notRunning: TaskStateRef[] = [];
  const onUnknownWorker: TaskStateRef[] = [];
  for (const c of poll.connectors ?? []) {
    const was = previous.get(c.name);
    if (c.state === "FAILED" && was?.state !== "FAILED") {
      failures.push({
        code: "connector-failed",
        connector: c.name,
        trace: null,
        message: `connector ${c.name} FAILED`,
      });
    }
    for (const t of c.tasks) {
      const wasTask = was?.tasks.get(t.id);
      // Most tasks were and are RUNNING on a verified worker: decided without building their key.
      if (
        wasTask === "RUNNING" &&
        t.state === "RUNNING" &&
        t.workerId !== null &&
        liveness.verified.has(t.workerId)
      )
        continue;
      const key = taskKey(c.name, t.id);
      if (t.state === "FAILED" && wasTask !== "FAILED") {
        const trace = firstLine(t.trace);
        failures.push({
          code: "task-failed",
          task: key,
          trace,
          message: `${key} FAILED${trace ? `: ${trace}` : ""}`,
        });
        continue;
      }
      if (wasTask !== "RUNNING") continue;
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

interface ConnectorBefore {
  readonly state: string;
  readonly tasks: ReadonlyMap<number, string>;
}

/** The baseline's connector and task states by name and task id, built once per baseline snapshot. */
const indexes = new WeakMap<ClusterSnapshot, ReadonlyMap<string, ConnectorBefore>>();

function baselineIndex(before: ClusterSnapshot): ReadonlyMap<string, ConnectorBefore> {
  const cached = indexes.get(before);
  if (cached) return cached;
  const index = new Map<string, ConnectorBefore>();
  for (const c of before.connectors ?? [])
    index.set(c.name, { state: c.state, tasks: new Map(c.tasks.map((t) => [t.id, t.state])) });
  indexes.set(before, index);
  return index;
}

function firstLine(trace: string | null): string | null {
  if (trace === null) return null;
  const line = trace.split("\n", 1)[0]?.trim() ?? "";
  return line === "" ? null : line;
}
