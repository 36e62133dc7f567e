import type { ClusterSnapshot } from "../snapshot.js";
import { versionMatches } from "../version.js";
import type { Baseline, GateReason } from "./settle-types.js";

/** The restarted worker is up, reports the target version and (if it held work) holds work again. */
export function checkRestartedWorker(poll: ClusterSnapshot, baseline: Baseline): GateReason[] {
  const name = baseline.worker.name;
  const w = poll.workers.find((x) => x.workerId === baseline.worker.workerId);
  if (!w?.reachable) {
    return [
      {
        code: "worker-down",
        worker: name,
        message: `${name} is not back yet${w?.error ? ` (${w.error})` : ""}`,
      },
    ];
  }
  const reasons: GateReason[] = [];
  if (w.health === "starting" || w.health === "unhealthy") {
    reasons.push({
      code: "worker-starting",
      worker: name,
      health: w.health,
      message: `${name} reports health ${w.health}`,
    });
  }
  if (w.version === null || !versionMatches(w.version, baseline.targetVersion)) {
    reasons.push({
      code: "worker-version-mismatch",
      worker: name,
      reported: w.version,
      expected: baseline.targetVersion,
      message: `${name} reports version ${w.version ?? "unknown"}, expected ${baseline.targetVersion}`,
    });
  }
  if (
    baseline.heldWork &&
    holdsNothing(poll, w.workerId, w.metrics?.assignedTasks ?? null, w.metrics?.assignedConnectors ?? null)
  ) {
    reasons.push({ code: "worker-idle", worker: name, message: `${name} holds no work yet` });
  }
  return reasons;
}

function holdsNothing(
  poll: ClusterSnapshot,
  workerId: string,
  assignedTasks: number | null,
  assignedConnectors: number | null,
): boolean {
  if (assignedTasks !== null || assignedConnectors !== null)
    return (assignedTasks ?? 0) + (assignedConnectors ?? 0) === 0;
  return !(poll.connectors ?? []).some(
    (c) =>
      (c.state === "RUNNING" && c.workerId === workerId) ||
      c.tasks.some((t) => t.state === "RUNNING" && t.workerId === workerId),
  );
}
