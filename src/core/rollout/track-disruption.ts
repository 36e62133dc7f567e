import { type ClusterSnapshot, taskKey } from "../snapshot.js";
import type { DisruptionTrack } from "./rollout-state.js";

export interface DisruptionDelta {
  readonly moves: number;
  readonly downtimeMs: number;
  readonly rebalances: number;
  readonly eagerRebalances: number;
}

export const EMPTY_TRACK: DisruptionTrack = { at: null, epoch: null, lastWorker: {}, down: [], eager: false };

/**
 * Workers whose RUNNING claims can be believed: reachable, and not reporting zero assigned tasks in metrics
 * (a restarted worker has the same host:port, so a stale RUNNING from before a crash looks live through REST alone).
 */
export function liveWorkerIds(snapshot: ClusterSnapshot): Set<string> {
  const live = new Set<string>();
  for (const w of snapshot.workers) {
    if (!w.reachable) continue;
    if (w.metrics?.assignedTasks === 0 && w.metrics.assignedConnectors === 0) continue;
    live.add(w.workerId);
  }
  return live;
}

/**
 * Folds one poll into the track: a task RUNNING on a different live worker than it last ran on is a move; a task down
 * at the previous poll adds the interval to the downtime (poll resolution); an epoch increase is a rebalance, counted
 * eager (stop-the-world) when the group ran eager at the previous poll or runs eager now: the first cooperative
 * rebalance after an eager generation still stops every task (seen on real 3.9 → 4.1 clusters: the rebalance in
 * which the last eager member leaves negotiates sessioned, yet every member stops its tasks). Pure; time comes from
 * the snapshot.
 */
export function trackDisruption(
  track: DisruptionTrack,
  snapshot: ClusterSnapshot,
): { track: DisruptionTrack; delta: DisruptionDelta } {
  if (snapshot.connectors === null)
    return { track, delta: { moves: 0, downtimeMs: 0, rebalances: 0, eagerRebalances: 0 } };
  const live = liveWorkerIds(snapshot);
  const lastWorker: Record<string, string> = { ...track.lastWorker };
  const down: string[] = [];
  let moves = 0;
  for (const connector of snapshot.connectors) {
    if (connector.state === "STOPPED") continue;
    for (const task of connector.tasks) {
      const key = taskKey(connector.name, task.id);
      const running =
        (task.state === "RUNNING" || task.state === "PAUSED") &&
        task.workerId !== null &&
        live.has(task.workerId);
      if (!running || task.workerId === null) {
        down.push(key);
        continue;
      }
      const before = lastWorker[key];
      if (before !== undefined && before !== task.workerId) moves += 1;
      lastWorker[key] = task.workerId;
    }
  }
  const interval = track.at === null ? 0 : Math.max(0, snapshot.readAt - track.at);
  const downtimeMs = interval * track.down.length;
  const epochs = snapshot.workers
    .map((w) => w.metrics?.epoch)
    .filter((e): e is number => typeof e === "number");
  const epoch = epochs.length > 0 ? Math.max(...epochs) : track.epoch;
  const rebalances = track.epoch !== null && epoch !== null && epoch > track.epoch ? epoch - track.epoch : 0;
  const eagerNow = snapshot.workers.some((w) => w.reachable && w.metrics?.protocol === "eager");
  // Of several rebalances between two polls only the first after an eager generation stops the world.
  const eagerRebalances = eagerNow ? rebalances : track.eager ? Math.min(1, rebalances) : 0;
  return {
    track: { at: snapshot.readAt, epoch, lastWorker, down, eager: eagerNow },
    delta: { moves, downtimeMs, rebalances, eagerRebalances },
  };
}
