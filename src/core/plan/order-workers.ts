import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";
import { versionMatches } from "../version.js";
import { compareNatural } from "./natural-compare.js";
import type { LeaderResolution, RollbackTarget, RolloutTarget, SkippedWorker } from "./plan-types.js";

export interface OrderedWorker {
  readonly worker: WorkerSnapshot;
  readonly isLeader: boolean;
  readonly reasons: readonly string[];
}

export interface WorkerOrder {
  readonly ordered: readonly OrderedWorker[];
  readonly skipped: readonly SkippedWorker[];
}

const FOLLOWER_REASON = "follower: its tasks are held by the scheduled delay and come back to it";
const LEADER_REASON =
  "group leader: bounced last so the assignor keeps one consistent delay window (docs/connect-behaviour.md#leader-last)";
const UNKNOWN_LEADER_REASON = "leader unknown: ordered by name; this step may be a leader bounce";
const ROTATE_LEADER_REASON =
  "group leader: restarted first; a new leader hands its tasks out at once, and each later step restarts the worker " +
  "that leads by then while it is one not restarted yet";
const ROTATE_FOLLOWER_REASON =
  "restarted at its turn if it leads by then (its tasks handed out at once); as a follower, its tasks are held by the " +
  "scheduled delay";

/**
 * Followers first in natural name order, the leader last; with `leaderFirst` (pace `rotate`) the leader first, then
 * the followers in name order (the rollout brings each later leader forward as it finds it). For an upgrade, workers
 * already reporting the target version are skipped with a reason.
 */
export function orderWorkers(
  snapshot: ClusterSnapshot,
  target: RolloutTarget,
  leader: LeaderResolution,
  leaderFirst = false,
): WorkerOrder {
  if (target.rollback) return orderRollback(snapshot, target, target.rollback, leader);
  const skipped: SkippedWorker[] = [];
  const toRestart: WorkerSnapshot[] = [];
  for (const w of [...snapshot.workers].sort((a, b) => compareNatural(a.name, b.name))) {
    if (target.kind === "upgrade" && w.version !== null && versionMatches(w.version, target.version)) {
      skipped.push({
        worker: w.name,
        reason: `already reports ${w.version}, which matches ${target.version}`,
      });
    } else {
      toRestart.push(w);
    }
  }
  const isLeader = (w: WorkerSnapshot) => leader.kind === "known" && leader.worker === w.name;
  const followers = toRestart.filter((w) => !isLeader(w));
  const leaders = toRestart.filter(isLeader);
  if (leaderFirst) {
    const rotated: OrderedWorker[] = [
      ...leaders.map((worker) => ({ worker, isLeader: true, reasons: [ROTATE_LEADER_REASON] })),
      ...followers.map((worker) => ({
        worker,
        isLeader: false,
        reasons: [leader.kind === "known" ? ROTATE_FOLLOWER_REASON : UNKNOWN_LEADER_REASON],
      })),
    ];
    return { ordered: rotated, skipped };
  }
  const followerReasons = leader.kind === "known" ? [FOLLOWER_REASON] : [UNKNOWN_LEADER_REASON];
  const ordered: OrderedWorker[] = [
    ...followers.map((worker) => ({ worker, isLeader: false, reasons: followerReasons })),
    ...leaders.map((worker) => ({ worker, isLeader: true, reasons: [LEADER_REASON] })),
  ];
  return { ordered, skipped };
}

/**
 * A rollback's order: the workers the rolled-back rollout moved, its newest move first (the reverse of how it went),
 * whichever leads; a worker already back on the version is skipped, and every other worker is left as it is.
 */
function orderRollback(
  snapshot: ClusterSnapshot,
  target: RolloutTarget,
  rollback: RollbackTarget,
  leader: LeaderResolution,
): WorkerOrder {
  const moved = new Set(rollback.workers);
  const skipped: SkippedWorker[] = [];
  const ordered: OrderedWorker[] = [];
  for (const w of [...snapshot.workers].sort((a, b) => compareNatural(a.name, b.name))) {
    if (!moved.has(w.name))
      skipped.push({ worker: w.name, reason: `not moved by ${rollback.of}: left as it is` });
  }
  for (const name of rollback.workers) {
    const w = snapshot.workers.find((x) => x.name === name);
    if (!w) {
      skipped.push({
        worker: name,
        reason: `moved by ${rollback.of}, but no longer a worker of the cluster`,
      });
    } else if (w.version !== null && versionMatches(w.version, target.version)) {
      skipped.push({
        worker: w.name,
        reason: `already reports ${w.version}, which matches ${target.version}`,
      });
    } else {
      const isLeader = leader.kind === "known" && leader.worker === w.name;
      ordered.push({
        worker: w,
        isLeader,
        reasons: [
          `moved to ${rollback.from} by ${rollback.of}: returned to ${target.version}, newest move first${isLeader ? " (the group leader now)" : ""}`,
        ],
      });
    }
  }
  return { ordered, skipped };
}
