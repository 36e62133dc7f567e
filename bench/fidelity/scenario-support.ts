import type { ClusterDriver, ClusterShape, FidelityState } from "./cluster-driver.js";

/**
 * Fidelity scenarios: written once against the control API, each returns named observations (facts and numbers)
 * that the simulator and the real cluster must agree on. Timings carry a stated tolerance (real clusters on 2 cores
 * jitter by seconds); facts must be equal.
 */
export interface Observation {
  readonly name: string;
  readonly value: number | boolean | string | null;
  /** Numbers: agreement within ± this many units (ms for timings). Absent: must be equal. */
  readonly tolerance?: number;
}

export interface Scenario {
  readonly name: string;
  readonly summary: string;
  /** Which cluster it needs (scenarios with the same shape share one cluster, run in order). */
  readonly shape: "base" | "eager" | "compatible" | "mixed";
  run(c: ClusterDriver, shape: ClusterShape): Promise<Observation[]>;
}

export const steady = (s: FidelityState) =>
  s.heldTasks.length === 0 &&
  s.delayDeadline === null &&
  s.workers.every((w) => w.state === "running") &&
  s.tasks.length > 0 &&
  s.tasks.every((t) => t.state === "RUNNING");

/**
 * Steady, and still steady with the same assignment `quietMs` of cluster time later: a cluster that is still creating
 * its connectors (a rebalance every few hundred ms) is steady for a moment between two rebalances, and a scenario
 * that stops a worker then would stop tasks that have only just started.
 */
export async function settle(c: ClusterDriver, shape: ClusterShape, quietMs = 3_000): Promise<FidelityState> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const first = await c.until("steady", steady, shape.delayMs * 3 + 120_000);
    const later = await c.until("a quiet moment", (s) => s.now >= first.now + quietMs, quietMs + 60_000);
    if (steady(later) && sameAssignment(first, later)) return later;
  }
  throw new Error(`${c.kind}: steady: never quiet for ${quietMs} ms`);
}

function sameAssignment(a: FidelityState, b: FidelityState): boolean {
  const of = (s: FidelityState) =>
    JSON.stringify(s.workers.map((w) => [w.name, [...w.tasks].sort()]).sort(), null, 0);
  return of(a) === of(b);
}

/** The first follower (by name) that runs at least one task. */
export function follower(s: FidelityState, except: readonly string[] = []): FidelityState["workers"][number] {
  const w = s.workers.find((x) => x.name !== s.leader && x.tasks.length > 0 && !except.includes(x.name));
  if (!w) throw new Error("no follower with tasks");
  return w;
}

export const delta = (
  a: FidelityState,
  b: FidelityState,
  k: "taskMoves" | "taskInterruptions" | "eagerRebalances",
) => b.counters[k] - a.counters[k];

export const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join(",") === [...b].sort().join(",");

/** The tasks a worker runs in a state (none when it is not there). */
export function tasksOf(s: FidelityState, worker: string | null): readonly string[] {
  return s.workers.find((w) => w.name === worker)?.tasks ?? [];
}

/** Whether `probe` comes to hold within `withinMs` of cluster time (an observation, not a failure). */
export function happens(
  c: ClusterDriver,
  what: string,
  probe: (s: FidelityState) => boolean,
  withinMs: number,
): Promise<boolean> {
  return c.until(what, probe, withinMs).then(
    () => true,
    () => false,
  );
}
