import type { TimelinePoint } from "./rollout-state.js";

/** The most points a checkpoint keeps; beyond it the timeline is thinned to half its resolution. */
export const TIMELINE_MAX_POINTS = 1_200;

/**
 * Appends one point; once the timeline holds `max` points, each pair of neighbours becomes one (the first's time, the
 * larger counts), so peaks survive and a rollout of any length keeps a bounded checkpoint.
 */
export function recordTimeline(
  timeline: readonly TimelinePoint[],
  point: TimelinePoint,
  max = TIMELINE_MAX_POINTS,
): TimelinePoint[] {
  const next = [...timeline, point];
  if (next.length <= max) return next;
  const thinned: TimelinePoint[] = [];
  for (let i = 0; i < next.length; i += 2) {
    const a = next[i];
    const b = next[i + 1];
    if (a === undefined) continue;
    thinned.push(
      b === undefined
        ? a
        : {
            at: a.at,
            down: Math.max(a.down, b.down),
            notFlowing:
              a.notFlowing === null && b.notFlowing === null
                ? null
                : Math.max(a.notFlowing ?? 0, b.notFlowing ?? 0),
            total: Math.max(a.total, b.total),
          },
    );
  }
  return thinned;
}
