import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";
import { versionMatches } from "../version.js";
import { compareNatural } from "./natural-compare.js";
import type { LeaderResolution, RolloutTarget, SkippedWorker } from "./plan-types.js";

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
