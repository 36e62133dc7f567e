import { type ClusterSnapshot, taskKey } from "../snapshot.js";
import type { Baseline, GateReason } from "./settle-types.js";
import type { FlowTrack } from "./track-flow.js";

/** A task's reading on the worker its status names, in one read. */
function readingOn(snapshot: ClusterSnapshot, key: string, workerId: string | null) {
  if (workerId === null) return undefined;
  return snapshot.workers.find((w) => w.workerId === workerId)?.metrics?.taskFlow?.[key];
}

/** Tasks whose instance was exactly-once in the baseline: their worker exported `transaction-size-avg` for them. */
function transactionalBefore(baseline: Baseline): Set<string> {
  const out = new Set<string>();
  for (const w of baseline.snapshot.workers)
    for (const [key, r] of Object.entries(w.metrics?.taskFlow ?? {}))
      if (r.transactions !== undefined) out.add(key);
  return out;
}

/**
 * The source tasks that run exactly-once: transactional in the baseline, transactional now, or of a connector
 * configured with `exactly.once.support`.
 */
export function exactlyOnceTasks(baseline: Baseline, poll: ClusterSnapshot): Set<string> {
  const out = transactionalBefore(baseline);
  for (const w of poll.workers)
    for (const [key, r] of Object.entries(w.metrics?.taskFlow ?? {}))
      if (r.transactions !== undefined) out.add(key);
  for (const c of poll.connectors ?? [])
    if (c.type === "source" && c.config["exactly.once.support"] !== undefined)
      for (const t of c.tasks) out.add(taskKey(c.name, t.id));
  return out;
}

/**
 * The exactly-once source tasks the step restarted or moved, RUNNING now, and whether each has committed a
 * transaction since it started: its worker's `transaction-size-avg` for it has a value (Connect records it only when a
 * transaction commits, and a new instance starts without one). A task is the step's when it ran on the restarted
 * worker, changed worker, or the data-flow track saw its instance start after the stop. Exactly-once: transactional in
 * the baseline, or its reading now carries the series. A task not RUNNING is left to the status checks, a task idle
 * before the step (it wrote nothing, so it commits nothing) is not counted.
 */
export function exactlyOnceStepTasks(
  baseline: Baseline,
  poll: ClusterSnapshot,
  flow: FlowTrack | undefined,
): { task: string; workerId: string | null; committed: boolean }[] {
  const before = transactionalBefore(baseline);
  const workerBefore = new Map<string, string | null>();
  for (const c of baseline.snapshot.connectors ?? [])
    for (const t of c.tasks) workerBefore.set(taskKey(c.name, t.id), t.workerId);
  const stepTasks = new Set(baseline.workerTasks);
  // An idle source commits no transaction (nothing to write): like the data-flow condition, it is not waited for.
  const idle = new Set(baseline.flow?.idle ?? []);
  const out: { task: string; workerId: string | null; committed: boolean }[] = [];
  for (const c of poll.connectors ?? []) {
    if (c.type !== "source") continue;
    for (const t of c.tasks) {
      if (t.state !== "RUNNING") continue;
      const key = taskKey(c.name, t.id);
      const startedAt = flow?.tasks[key]?.startedAt ?? null;
      const ofStep =
        stepTasks.has(key) ||
        (workerBefore.has(key) && workerBefore.get(key) !== t.workerId) ||
        (startedAt !== null && startedAt >= baseline.stopIssuedAt);
      if (!ofStep || idle.has(key)) continue;
      const reading = readingOn(poll, key, t.workerId);
      if (!before.has(key) && reading?.transactions === undefined) continue;
      out.push({ task: key, workerId: t.workerId, committed: reading?.transactions === "committed" });
    }
  }
  return out;
}

/** The step's exactly-once tasks that have not committed a transaction since they started (`eos-no-commit`). */
export function checkExactlyOnceCommits(
  baseline: Baseline,
  poll: ClusterSnapshot,
  flow: FlowTrack | undefined,
): GateReason[] {
  const waiting = exactlyOnceStepTasks(baseline, poll, flow)
    .filter((t) => !t.committed)
    .map(({ task, workerId }) => ({ task, workerId }));
  if (waiting.length === 0) return [];
  const shown = waiting
    .slice(0, 5)
    .map((w) => `${w.task}@${w.workerId ?? "-"}`)
    .join(", ");
  return [
    {
      code: "eos-no-commit",
      tasks: waiting,
      message: `${waiting.length} exactly-once tasks have not committed a transaction since they started (${shown}${waiting.length > 5 ? ", …" : ""})`,
    },
  ];
}
