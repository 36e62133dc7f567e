import { type ClusterSnapshot, type TaskFlowReading, taskKey } from "../snapshot.js";

/**
 * What a rollout remembers of each task's data flow between reads of the cluster, from the per-task metrics
 * (docs/connect-behaviour.md#data-flow-metrics). Counters count since a task instance started, so a new instance is
 * known by a new worker, a counter that went down, or a reading after one without any; readings are compared only
 * within one instance.
 */
export interface TaskFlowTrack {
  /** Worker id of the instance read last; null when the task had no live instance at the last reading. */
  readonly worker: string | null;
  readonly kind: "source" | "sink";
  readonly records: number;
  readonly lag: number | null;
  readonly fetches: number | null;
  readonly failures: number;
  /** Record failures summed over the instances seen: what the gate compares with its baseline. */
  readonly errors: number;
  /** The first reading of the current instance (null while it has none). */
  readonly startedAt: number | null;
  /** The current instance moved data, or (a sink) found nothing to read while it fetched. */
  readonly moved: boolean;
  /** The current instance's last reading with progress: records advanced, or a sink's lag fell or was 0 while fetching. */
  readonly progressAt: number | null;
  /** The last reading at which records advanced, any instance. */
  readonly movedAt: number | null;
  /** The time of the last reading of this task. */
  readonly readAt: number;
  /** Records per ms between the last two readings that advanced within one instance (null: not yet known). */
  readonly rate: number | null;
  /** How the lag changed between the last two readings of one instance (null: not a sink, or unknown). */
  readonly lagDelta: number | null;
  /**
   * The task stopped after it last moved data and has not moved since: the worker it stopped on and when it most
   * likely stopped moving data (midway between its last reading that advanced and the one that found it stopped).
   */
  readonly gap: { readonly from: string | null; readonly since: number } | null;
  /** The first reading of this task at all. */
  readonly seenSince: number;
}

export interface FlowTrack {
  /** The first read folded in (null before any). */
  readonly since: number | null;
  /** Some worker's metrics had per-task series at the last read: data flow is visible. */
  readonly visible: boolean;
  readonly tasks: Readonly<Record<string, TaskFlowTrack>>;
}

/** A task moved data again after it stopped: from its last reading that advanced to the first that advanced after. */
export interface FlowGap {
  readonly task: string;
  /** Worker id it ran on when it stopped. */
  readonly worker: string | null;
  readonly gapMs: number;
}

export const EMPTY_FLOW_TRACK: FlowTrack = { since: null, visible: false, tasks: {} };

type Reading =
  | { readonly kind: "live"; readonly worker: string; readonly flow: TaskFlowReading }
  | { readonly kind: "gone" }
  | { readonly kind: "unknown" };

/**
 * Folds one read into the track, and returns the gaps that closed with it. A gap runs from when the task most likely
 * stopped (midway between its last reading that advanced and the reading that found it stopped) to when it most
 * likely wrote again (the first reading that advanced, less the records it shows at the task's earlier rate, never
 * before the reading before it): within half a read interval at each end. A read without connector statuses changes
 * nothing.
 */
export function trackFlow(
  track: FlowTrack,
  snapshot: ClusterSnapshot,
): { readonly track: FlowTrack; readonly gaps: readonly FlowGap[] } {
  if (snapshot.connectors === null) return { track, gaps: [] };
  const at = snapshot.readAt;
  const visible = snapshot.workers.some((w) => w.reachable && (w.metrics?.taskFlow ?? null) !== null);
  if (!visible && Object.keys(track.tasks).length === 0)
    return { track: { ...track, since: track.since ?? at, visible }, gaps: [] };
  const gaps: FlowGap[] = [];
  const tasks: Record<string, TaskFlowTrack> = {};
  for (const connector of snapshot.connectors) {
    for (const task of connector.tasks) {
      const key = taskKey(connector.name, task.id);
      const before = track.tasks[key];
      const next = foldTask(before, readingOf(snapshot, key, task.workerId), at, (gapMs, from) =>
        gaps.push({ task: key, worker: from, gapMs }),
      );
      if (next) tasks[key] = next;
    }
  }
  return { track: { since: track.since ?? at, visible, tasks }, gaps };
}

/**
 * The task's reading from the worker its status names, or else from any reachable worker whose metrics have it. A
 * reachable named worker without readable per-task metrics says nothing (a failed scrape is not a stopped task).
 */
function readingOf(snapshot: ClusterSnapshot, key: string, workerId: string | null): Reading {
  const named = snapshot.workers.find((w) => w.workerId === workerId);
  const namedFlow = named?.reachable ? (named.metrics?.taskFlow ?? null) : null;
  const own = namedFlow?.[key];
  if (named && own) return { kind: "live", worker: named.workerId, flow: own };
  for (const w of snapshot.workers) {
    const flow = w.reachable ? w.metrics?.taskFlow?.[key] : undefined;
    if (flow) return { kind: "live", worker: w.workerId, flow };
  }
  if (named?.reachable && namedFlow === null) return { kind: "unknown" };
  return { kind: "gone" };
}

function foldTask(
  p: TaskFlowTrack | undefined,
  r: Reading,
  at: number,
  closed: (gapMs: number, from: string | null) => void,
): TaskFlowTrack | undefined {
  if (r.kind === "unknown") return p;
  if (r.kind === "gone") {
    if (p === undefined || p.worker === null) return p;
    return {
      ...p,
      worker: null,
      startedAt: null,
      moved: false,
      progressAt: null,
      lagDelta: null,
      gap: openGap(p, at),
      readAt: at,
    };
  }
  const f = r.flow;
  if (p === undefined)
    return {
      worker: r.worker,
      kind: f.kind,
      records: f.records,
      lag: f.lag,
      fetches: f.fetches,
      failures: f.failures,
      errors: 0,
      startedAt: at,
      moved: false,
      progressAt: null,
      movedAt: null,
      readAt: at,
      rate: null,
      lagDelta: null,
      gap: null,
      seenSince: at,
    };
  const fresh =
    p.worker === null ||
    p.worker !== r.worker ||
    f.records < p.records ||
    (f.fetches !== null && p.fetches !== null && f.fetches < p.fetches);
  // A live instance replaced by another between two reads stopped in between.
  const gap = fresh && p.worker !== null ? openGap(p, at) : p.gap;
  const fetching =
    f.fetches !== null && (fresh ? f.fetches > 0 : p.fetches !== null && f.fetches > p.fetches);
  const advanced = fresh ? f.records > 0 : f.records > p.records;
  const lagFell = !fresh && f.lag !== null && p.lag !== null && f.lag < p.lag;
  const nothingToRead = f.kind === "sink" && f.lag === 0 && fetching;
  const progress = advanced || lagFell || nothingToRead;
  if (advanced && gap !== null) {
    // The records written since the reading before were written since it began writing again: back from this
    // reading at the task's earlier rate, never before that reading.
    const written = fresh ? f.records : f.records - p.records;
    const began = p.rate !== null && p.rate > 0 ? Math.max(p.readAt, at - written / p.rate) : at;
    closed(Math.max(0, Math.round(began - gap.since)), gap.from);
  }
  // Rounded (records per ms to 1e-6): the track is checkpointed, and 17 digits of a rate are bytes for nothing.
  const rate =
    !fresh && advanced && at > p.readAt
      ? Math.round(((f.records - p.records) / (at - p.readAt)) * 1e6) / 1e6
      : p.rate;
  return {
    worker: r.worker,
    kind: f.kind,
    records: f.records,
    lag: f.lag,
    fetches: f.fetches,
    failures: f.failures,
    errors: p.errors + (fresh ? f.failures : Math.max(0, f.failures - p.failures)),
    startedAt: fresh ? at : p.startedAt,
    moved: (fresh ? false : p.moved) || progress,
    progressAt: progress ? at : fresh ? null : p.progressAt,
    movedAt: advanced ? at : p.movedAt,
    readAt: at,
    rate,
    lagDelta: !fresh && f.lag !== null && p.lag !== null ? f.lag - p.lag : null,
    gap: advanced ? null : gap,
    seenSince: p.seenSince,
  };
}

/** The gap a stop opens (kept if one is open): it stopped midway to this reading if it moved at the last one. */
function openGap(p: TaskFlowTrack, at: number): TaskFlowTrack["gap"] {
  if (p.gap !== null) return p.gap;
  if (p.movedAt === null) return null;
  return { from: p.worker, since: p.movedAt === p.readAt ? (p.movedAt + at) / 2 : p.movedAt };
}
