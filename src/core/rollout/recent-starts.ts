import type { ClusterSnapshot } from "../snapshot.js";

/**
 * Workers whose process started much later than the rest, from the start-time metric: "worker-1 started 40 s ago,
 * the others 3 days ago". After Redis lost a rollout's record, these are the workers that rollout already restarted;
 * a plain restart without `since` asks before restarting them again. A worker counts as recent when it started at
 * least `MIN_GAP_MS` after every other worker and its age is under a tenth of the youngest other's age.
 */
export const MIN_GAP_MS = 10 * 60_000;
const AGE_RATIO = 10;

export interface RecentStarts {
  readonly workers: readonly { readonly worker: string; readonly startedAt: number }[];
  readonly othersStartedAt: number;
}

export function recentlyStarted(snapshot: ClusterSnapshot, now: number): RecentStarts | null {
  const starts = snapshot.workers.flatMap((w) => {
    const at = w.reachable ? w.metrics?.startTimeMs : null;
    return typeof at === "number" ? [{ worker: w.name, startedAt: at }] : [];
  });
  // Every worker must say when it started, and at least one must be old: otherwise nothing tells them apart.
  if (starts.length < 2 || starts.length < snapshot.workers.length) return null;
  const sorted = [...starts].sort((a, b) => a.startedAt - b.startedAt);
  // The largest gap between consecutive start times splits the old workers from the recent ones.
  let split = -1;
  let widest = 0;
  for (let i = 1; i < sorted.length; i += 1) {
    const gap = (sorted[i]?.startedAt ?? 0) - (sorted[i - 1]?.startedAt ?? 0);
    if (gap > widest) {
      widest = gap;
      split = i;
    }
  }
  if (split < 1 || widest < MIN_GAP_MS) return null;
  const old = sorted.slice(0, split);
  const recent = sorted.slice(split);
  const othersStartedAt = old.at(-1)?.startedAt ?? 0;
  const youngestOldAge = now - othersStartedAt;
  if (recent.some((r) => (now - r.startedAt) * AGE_RATIO > youngestOldAge)) return null;
  return { workers: recent, othersStartedAt };
}
