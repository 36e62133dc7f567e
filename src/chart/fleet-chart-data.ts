import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type { RolloutState, StepStatus } from "../core/rollout/rollout-state.js";
import { buildChartData } from "./chart-data.js";
import type { ChartData, ChartSegment, ChartSharePoint } from "./chart-types.js";

/** What the fleet view needs of a fleet run (the stored record's fields, jobs/store/fleet-record.ts). */
export interface FleetChartRun {
  readonly fleet: string;
  readonly id: string;
  readonly target: string;
  readonly status: string;
  readonly startedAt: number;
  readonly updatedAt: number;
  readonly stages: readonly {
    readonly clusters: readonly { readonly name: string; readonly status: string }[];
  }[];
}

/**
 * A fleet run's timeline as the rollout chart's data, a lane per cluster (`stage n · cluster`, in stage order): a
 * cluster's lane is "restarting" while one of its workers is down, "back, settling" while its rollout runs otherwise,
 * and "on target" once it succeeded. The share below is the worst cluster's share of tasks not running (and not
 * flowing) at each read. `states` holds each cluster's rollout by name (missing: not started). Pure.
 */
export function buildFleetChartData(
  run: FleetChartRun,
  states: ReadonlyMap<string, RolloutState>,
  now: number,
): ChartData {
  const running = run.status === "running";
  const endAt = running ? Math.max(now, run.updatedAt) : run.updatedAt;
  const spanMs = Math.max(1, endAt - run.startedAt);
  // Lanes numbered from 1 in stage order (the chart's step numbers).
  const firstOf = run.stages.map((_, i) => run.stages.slice(0, i).reduce((n, s) => n + s.clusters.length, 0));
  const laneIndex = (stage: number, j: number) => (firstOf[stage] ?? 0) + j + 1;
  const lanes = run.stages.flatMap((stage, i) =>
    stage.clusters.map((c, j) => {
      const state = states.get(c.name);
      return {
        step: laneIndex(i, j),
        worker: `stage ${i + 1} · ${c.name}`,
        isLeader: false,
        status: laneStatus(c.status),
        segments: state === undefined ? [] : clusterSegments(state, run.startedAt, spanMs),
      };
    }),
  );
  const clusters = run.stages.reduce((n, s) => n + s.clusters.length, 0);
  return {
    title: `fleet ${run.fleet} → ${run.target}: ${run.status}`,
    subtitle: [
      `run ${run.id}`,
      plural(run.stages.length, "stage"),
      plural(clusters, "cluster"),
      formatDuration(spanMs),
      `started ${new Date(run.startedAt).toISOString()}`,
      "share: the worst cluster's",
    ].join(" · "),
    startedAt: run.startedAt,
    spanMs,
    running,
    lanes,
    windows: [],
    deadlines: [],
    approvals: [],
    stepStarts: [],
    share: worstShare([...states.values()], run.startedAt),
    flowVisible: [...states.values()].some((s) => s.timeline.some((p) => p.notFlowing !== null)),
  };
}

function laneStatus(status: string): StepStatus {
  switch (status) {
    case "succeeded":
      return "settled";
    case "failed":
    case "aborted":
      return "failed";
    case "running":
      return "settling";
    default:
      return "pending";
  }
}

/** A cluster's lane on the fleet's time axis: its workers' down time, its rollout's other time, then on target. */
function clusterSegments(state: RolloutState, fleetStart: number, spanMs: number): ChartSegment[] {
  const offset = state.startedAt - fleetStart;
  const own = buildChartData(state);
  const down = union(
    own.lanes.flatMap((l) =>
      l.segments
        .filter((s) => s.kind === "down")
        .map((s) => ({ from: s.from + offset, to: Math.min(spanMs, s.to + offset) })),
    ),
  );
  const from = Math.max(0, offset);
  const finished = state.phase.kind === "finished";
  const to = finished ? Math.min(spanMs, (state.finishedAt ?? state.updatedAt) - fleetStart) : spanMs;
  const segments: ChartSegment[] = [];
  let at = from;
  for (const d of down) {
    if (d.from > at) segments.push({ kind: "settling", from: at, to: Math.min(d.from, to) });
    segments.push({ kind: "down", from: d.from, to: d.to });
    at = Math.max(at, d.to);
  }
  if (at < to) segments.push({ kind: "settling", from: at, to });
  if (finished && state.phase.kind === "finished" && state.phase.result === "succeeded" && to < spanMs)
    segments.push({ kind: "on-target", from: to, to: spanMs });
  return segments.filter((s) => s.to > s.from);
}

function union(intervals: { from: number; to: number }[]): { from: number; to: number }[] {
  const sorted = [...intervals].sort((a, b) => a.from - b.from);
  const merged: { from: number; to: number }[] = [];
  for (const i of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && i.from <= last.to) last.to = Math.max(last.to, i.to);
    else merged.push({ ...i });
  }
  return merged;
}

/** At each read of any cluster: the highest share among the clusters' latest reads (a finished one counts as 0). */
function worstShare(states: readonly RolloutState[], fleetStart: number): ChartSharePoint[] {
  const reads = states.flatMap((s, k) =>
    s.timeline.map((p) => ({
      k,
      at: p.at - fleetStart,
      down: p.total > 0 ? p.down / p.total : 0,
      notFlowing: p.notFlowing === null ? null : p.total > 0 ? p.notFlowing / p.total : 0,
    })),
  );
  const ends = states.flatMap((s, k) =>
    s.phase.kind === "finished"
      ? [{ k, at: (s.finishedAt ?? s.updatedAt) - fleetStart, down: 0, notFlowing: 0 }]
      : [],
  );
  const latest = new Map<number, { down: number; notFlowing: number | null }>();
  const points: ChartSharePoint[] = [];
  for (const r of [...reads, ...ends].sort((a, b) => a.at - b.at)) {
    latest.set(r.k, { down: r.down, notFlowing: r.notFlowing });
    const values = [...latest.values()];
    const flowing = values.filter((v) => v.notFlowing !== null);
    points.push({
      at: Math.max(0, r.at),
      down: Math.max(...values.map((v) => v.down)),
      notFlowing: flowing.length === 0 ? null : Math.max(...flowing.map((v) => v.notFlowing ?? 0)),
    });
  }
  return points;
}
