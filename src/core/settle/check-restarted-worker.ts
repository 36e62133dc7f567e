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
    holdsNothing(poll, w.workerId, w.metrics?.assignedTasks ?? null, w.metrics?.assignedConnectors ?? null) &&
    !balancedWithout(poll, w.workerId)
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

/**
 * Every connector and task runs on another reachable worker, and none holds more than its even share
 * (⌈connectors / workers⌉, ⌈tasks / workers⌉): the assignor has nothing to revoke for the idle worker, so waiting
 * for it to hold work would never end (a cluster with fewer tasks than workers, seen when its leader was bounced).
 */
function balancedWithout(poll: ClusterSnapshot, workerId: string): boolean {
  const live = new Set(poll.workers.filter((x) => x.reachable).map((x) => x.workerId));
  const connectors = new Map<string, number>();
  const tasks = new Map<string, number>();
  let connectorCount = 0;
  let taskCount = 0;
  for (const c of poll.connectors ?? []) {
    if (c.state !== "RUNNING" || c.workerId === null || c.workerId === workerId || !live.has(c.workerId))
      return false;
    connectorCount += 1;
    connectors.set(c.workerId, (connectors.get(c.workerId) ?? 0) + 1);
    for (const t of c.tasks) {
      if (t.state !== "RUNNING" || t.workerId === null || t.workerId === workerId || !live.has(t.workerId))
        return false;
      taskCount += 1;
      tasks.set(t.workerId, (tasks.get(t.workerId) ?? 0) + 1);
    }
  }
  if (poll.connectors === null || live.size === 0) return false;
  const fair = (n: number) => Math.ceil(n / live.size);
  return (
    [...connectors.values()].every((n) => n <= fair(connectorCount)) &&
    [...tasks.values()].every((n) => n <= fair(taskCount))
  );
}
