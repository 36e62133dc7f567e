import { type ClusterSnapshot, taskKey } from "../snapshot.js";
import type {
  CanaryCounter,
  CanaryFigures,
  CanaryFinding,
  CanarySettings,
  CanaryTrack,
} from "./canary-types.js";

/** Every task's data-flow counters in this read, with the worker that exported them, by task key. */
export function canaryCounters(snapshot: ClusterSnapshot): Record<string, CanaryCounter> {
  const counters: Record<string, CanaryCounter> = {};
  for (const w of snapshot.workers) {
    if (!w.reachable) continue;
    for (const [task, r] of Object.entries(w.metrics?.taskFlow ?? {}))
      counters[task] = { workerId: w.workerId, records: r.records, failures: r.failures };
  }
  return counters;
}

/** Each reachable worker JVM's GC seconds in this read, by worker id (the workers whose JVM series are exported). */
export function gcSeconds(snapshot: ClusterSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const w of snapshot.workers) {
    const gc = w.reachable ? w.metrics?.jvm?.gcSeconds : null;
    if (typeof gc === "number") out[w.workerId] = gc;
  }
  return out;
}

/** Every task FAILED in this read (on `workerId` only, when given). */
export function failedTasks(snapshot: ClusterSnapshot, workerId: string | null = null): string[] {
  return (snapshot.connectors ?? []).flatMap((c) =>
    c.tasks
      .filter((t) => t.state === "FAILED" && (workerId === null || t.workerId === workerId))
      .map((t) => taskKey(c.name, t.id)),
  );
}

/** The canary's tasks FAILED in this read that were not FAILED when the soak began. */
export function canaryTasksFailed(track: CanaryTrack, snapshot: ClusterSnapshot): string[] {
  const before = new Set(track.failedAtStart ?? []);
  return failedTasks(snapshot, track.workerId).filter((t) => !before.has(t));
}

/**
 * What the read says of the canary itself at the soak's end: down (not answering, or not on the target), and the
 * tasks it ran when the soak began that it no longer runs.
 */
export function canaryLost(
  track: CanaryTrack,
  snapshot: ClusterSnapshot,
  onTarget: (reported: string) => boolean,
): CanaryFinding[] {
  const w = snapshot.workers.find((x) => x.workerId === track.workerId);
  if (!w?.reachable || w.version === null || !onTarget(w.version)) return [{ metric: "canary-down" }];
  const now = canaryCounters(snapshot);
  const lost = Object.entries(track.start)
    .filter(([task, c]) => c.workerId === track.workerId && now[task]?.workerId !== track.workerId)
    .map(([task]) => task)
    .sort();
  return lost.length === 0 ? [] : [{ metric: "tasks-lost", tasks: lost }];
}

/**
 * The soak's figures from its start counters to this read: per task, the records and failures it added (a counter
 * that went back counts from zero: the task restarted) on the worker it ran on at both reads (a moved task is not
 * compared), the canary's tasks against those on `oldWorkerIds`; and what fails the canary under `settings`.
 */
export function measureCanary(
  track: CanaryTrack,
  snapshot: ClusterSnapshot,
  oldWorkerIds: ReadonlySet<string>,
  settings: CanarySettings,
): { readonly figures: CanaryFigures; readonly findings: CanaryFinding[] } {
  const seconds = Math.max(1, snapshot.readAt - track.startedAt) / 1000;
  const canary: Measured[] = [];
  const others: Measured[] = [];
  for (const [task, end] of Object.entries(canaryCounters(snapshot))) {
    const start = track.start[task];
    if (start === undefined || start.workerId !== end.workerId) continue;
    const added = (from: number, to: number) => (to >= from ? to - from : to);
    const m: Measured = {
      connector: task.slice(0, task.lastIndexOf("/")),
      rate: added(start.records, end.records) / seconds,
      failures: added(start.failures, end.failures),
    };
    if (end.workerId === track.workerId) canary.push(m);
    else if (oldWorkerIds.has(end.workerId)) others.push(m);
  }
  const counted = {
    soakMs: snapshot.readAt - track.startedAt,
    canaryTasks: canary.length,
    otherTasks: others.length,
    canaryRate: median(canary.map((m) => m.rate)),
    otherRate: median(others.map((m) => m.rate)),
    rateRatio: rateRatio(canary, others),
    canaryFailures: sum(canary.map((m) => m.failures)),
    otherFailures: sum(others.map((m) => m.failures)),
  };
  const jvm = jvmShares(track, snapshot, oldWorkerIds, seconds);
  const figures: CanaryFigures = { ...counted, ...jvm };
  const findings: CanaryFinding[] = [];
  if (
    figures.rateRatio !== null &&
    figures.rateRatio < settings.minRateRatio &&
    figures.canaryRate !== null &&
    figures.otherRate !== null
  )
    findings.push({
      metric: "record-rate",
      canary: figures.canaryRate,
      others: figures.otherRate,
      ratio: figures.rateRatio,
      minRatio: settings.minRateRatio,
    });
  const perTask = (n: number, tasks: number) => (tasks === 0 ? 0 : n / tasks);
  if (
    figures.canaryFailures > settings.maxNewFailures &&
    perTask(figures.canaryFailures, figures.canaryTasks) > perTask(figures.otherFailures, figures.otherTasks)
  )
    findings.push({
      metric: "record-failures",
      canary: figures.canaryFailures,
      others: figures.otherFailures,
      canaryTasks: figures.canaryTasks,
      otherTasks: figures.otherTasks,
    });
  const { canaryGcShare, otherGcShare, canaryHeapShare, otherHeapShare } = jvm;
  if (
    canaryGcShare !== null &&
    otherGcShare !== null &&
    canaryGcShare > settings.minGcShare &&
    canaryGcShare > settings.maxGcRatio * otherGcShare
  )
    findings.push({
      metric: "gc-time",
      canary: canaryGcShare,
      others: otherGcShare,
      maxRatio: settings.maxGcRatio,
    });
  if (
    canaryHeapShare !== null &&
    otherHeapShare !== null &&
    canaryHeapShare > settings.maxHeapShare &&
    otherHeapShare <= settings.maxHeapShare
  )
    findings.push({
      metric: "heap",
      canary: canaryHeapShare,
      others: otherHeapShare,
      maxShare: settings.maxHeapShare,
    });
  return { figures, findings };
}

/**
 * The canary JVM's share of the soak spent in GC and its heap (after the last collection where exported) over its max
 * at the end, against the old workers'
 * medians; null where the JVM series are not exported (or a worker restarted during the soak: its GC time began again).
 */
function jvmShares(
  track: CanaryTrack,
  snapshot: ClusterSnapshot,
  oldWorkerIds: ReadonlySet<string>,
  seconds: number,
): {
  canaryGcShare: number | null;
  otherGcShare: number | null;
  canaryHeapShare: number | null;
  otherHeapShare: number | null;
} {
  const gcShare = new Map<string, number>();
  const heapShare = new Map<string, number>();
  for (const w of snapshot.workers) {
    const jvm = w.reachable ? w.metrics?.jvm : null;
    if (!jvm) continue;
    const start = track.gcAtStart?.[w.workerId];
    if (jvm.gcSeconds !== null && start !== undefined && jvm.gcSeconds >= start)
      gcShare.set(w.workerId, (jvm.gcSeconds - start) / seconds);
    // The live heap (after the last collection) where exported: the heap used swings with every young collection.
    const used = jvm.heapAfterGcBytes ?? jvm.heapUsedBytes;
    if (used !== null && jvm.heapMaxBytes !== null && jvm.heapMaxBytes > 0)
      heapShare.set(w.workerId, used / jvm.heapMaxBytes);
  }
  const old = (m: Map<string, number>) =>
    median([...m].filter(([id]) => oldWorkerIds.has(id)).map(([, v]) => v));
  return {
    canaryGcShare: gcShare.get(track.workerId) ?? null,
    otherGcShare: old(gcShare),
    canaryHeapShare: heapShare.get(track.workerId) ?? null,
    otherHeapShare: old(heapShare),
  };
}

interface Measured {
  readonly connector: string;
  readonly rate: number;
  readonly failures: number;
}

/** Connector by connector, the canary's median rate over the others'; the median of those shares. */
function rateRatio(canary: readonly Measured[], others: readonly Measured[]): number | null {
  const ratios: number[] = [];
  for (const connector of new Set(canary.map((m) => m.connector))) {
    const mine = median(canary.filter((m) => m.connector === connector).map((m) => m.rate));
    const theirs = median(others.filter((m) => m.connector === connector).map((m) => m.rate));
    if (mine !== null && theirs !== null && theirs > 0) ratios.push(mine / theirs);
  }
  return median(ratios);
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? null) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
