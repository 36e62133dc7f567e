import { formatDuration } from "../format-duration.js";
import { countConfiguredTasks } from "../plan/count-worker-tasks.js";
import { type ClusterSnapshot, sameUrl } from "../snapshot.js";
import type { GateReason } from "./settle-types.js";

export interface GroupState {
  readonly reasons: readonly GateReason[];
  /** Σ assigned-tasks over all workers, when every worker is reachable and reports it. */
  readonly assigned: number | null;
  readonly configured: number;
  readonly rebalancing: boolean;
  /** The leader's URL when every reporting worker agrees on it. */
  readonly leaderUrl: string | null;
}

/**
 * Group-level checks from worker metrics (docs/connect-behaviour.md#metrics): one epoch and leader, no
 * rebalance running, the last one older than the quiet period. Assignment counts are compared by the caller.
 */
export function checkGroup(poll: ClusterSnapshot, now: number, quietPeriodMs: number): GroupState {
  const configured = countConfiguredTasks(poll);
  const reasons: GateReason[] = [];
  for (const w of poll.workers.filter((x) => !x.reachable)) {
    reasons.push({
      code: "worker-unreachable",
      worker: w.name,
      message: `${w.name} is unreachable${w.error ? ` (${w.error})` : ""}`,
    });
  }
  const reporting = poll.workers.filter((w) => w.reachable && w.metrics !== null);
  if (reporting.length === 0)
    return { reasons, assigned: null, configured, rebalancing: false, leaderUrl: null };
  const epochs = [...new Set(reporting.flatMap((w) => (w.metrics?.epoch == null ? [] : [w.metrics.epoch])))];
  if (epochs.length > 1) {
    reasons.push({
      code: "epoch-mismatch",
      epochs,
      message: `workers disagree on the group epoch (${epochs.join(", ")})`,
    });
  }
  const leaders: string[] = [];
  for (const w of reporting) {
    const url = w.metrics?.leaderUrl;
    if (url && !leaders.some((l) => sameUrl(l, url))) leaders.push(url);
  }
  const [leaderUrl] = leaders;
  if (leaders.length > 1) {
    reasons.push({
      code: "leader-mismatch",
      leaders,
      message: `workers disagree on the leader (${leaders.join(", ")})`,
    });
  } else if (leaderUrl !== undefined && !poll.workers.some((w) => w.reachable && sameUrl(w.url, leaderUrl))) {
    reasons.push({
      code: "leader-not-live",
      leaderUrl,
      message: `the leader ${leaderUrl} is not a live worker`,
    });
  }
  const busy = reporting.filter((w) => w.metrics?.rebalancing === true).map((w) => w.name);
  if (busy.length > 0) {
    reasons.push({
      code: "rebalancing",
      workers: busy,
      message: `a rebalance is running (${busy.join(", ")})`,
    });
  }
  const sinceLast = Math.min(
    ...reporting.map(
      (w) => (w.metrics?.timeSinceLastRebalanceMs ?? Number.POSITIVE_INFINITY) + (now - poll.readAt),
    ),
  );
  if (busy.length === 0 && sinceLast < quietPeriodMs) {
    const remainingMs = quietPeriodMs - sinceLast;
    reasons.push({
      code: "rebalance-recent",
      remainingMs,
      message: `the last rebalance was ${formatDuration(sinceLast)} ago; waiting for a quiet period`,
    });
  }
  const counts = poll.workers.map((w) => (w.reachable ? (w.metrics?.assignedTasks ?? null) : null));
  const assigned = counts.every((n) => n !== null) ? counts.reduce<number>((a, n) => a + (n ?? 0), 0) : null;
  return {
    reasons,
    assigned,
    configured,
    rebalancing: busy.length > 0,
    leaderUrl: leaders.length === 1 ? (leaderUrl ?? null) : null,
  };
}
