import type { LedgerReport } from "../src/sim/ledger.js";
import { createSimCluster, type SimCluster } from "../src/sim/sim-cluster.js";
import { resolveSimOptions } from "../src/sim/sim-options.js";
import type { Scenario } from "./scenarios.js";

/** Driving an in-process simulated cluster in virtual time for the naive strategies. */
export const STEP_MS = 500;
/** Steady running between the cluster's first settle and the rollout's start. */
export const STEADY_BEFORE_MS = 10_000;
const SETTLE_TIMEOUT_MS = 6 * 3600_000;

export interface CounterSnapshot {
  readonly rebalances: number;
  readonly eagerRebalances: number;
  readonly moves: number;
  readonly interruptions: number;
}

export interface BenchCluster {
  readonly cluster: SimCluster;
  readonly scenario: Scenario;
  readonly seed: number;
  /** Simulated time at which the rollout starts (the cluster has settled once). */
  readonly t0: number;
  readonly before: CounterSnapshot;
  readonly totalTasks: number;
  /** The group leader when the rollout starts. */
  readonly leader: string | null;
  readonly workers: readonly string[];
}

/** What the ledger says about one rollout, measured from t0 to the moment the cluster settled. */
export interface LedgerFigures {
  readonly wallMs: number;
  readonly settled: boolean;
  readonly perTaskDowntimeMs: readonly number[];
  readonly moves: number;
  readonly interruptions: number;
  readonly rebalances: number;
  readonly eagerRebalances: number;
  readonly peakShare: number;
  readonly report: LedgerReport;
}

export function createBenchCluster(scenario: Scenario, seed: number): BenchCluster {
  const cluster = createSimCluster(resolveSimOptions({ ...scenario.sim, seed, virtualTime: true }));
  return prepareBenchCluster(cluster, scenario, seed);
}

/** Lets a freshly created cluster settle once, and records the starting point of the rollout. */
export function prepareBenchCluster(cluster: SimCluster, scenario: Scenario, seed: number): BenchCluster {
  const workers = cluster.workerNames();
  const totalTasks = scenario.sim.connectors * scenario.sim.tasksPerConnector;
  const ok = advanceUntil(cluster, () => isSettled(cluster, workers, totalTasks, null), 120_000);
  if (!ok) throw new Error(`scenario ${scenario.id} seed ${seed}: the cluster did not settle at start`);
  // A while of steady running first, as a production cluster has had: a worker stopped moments after its tasks
  // started leaves them a stale RUNNING (src/sim/worker-runtime.ts), which would fool a status-reading gate.
  cluster.advance(STEADY_BEFORE_MS);
  const state = cluster.state();
  return {
    cluster,
    scenario,
    seed,
    t0: cluster.now(),
    before: countersOf(cluster),
    totalTasks,
    leader: state.leader,
    workers,
  };
}

/** Advances virtual time in STEP_MS steps until `done()` holds; false on timeout. */
export function advanceUntil(cluster: SimCluster, done: () => boolean, timeoutMs: number): boolean {
  const until = cluster.now() + timeoutMs;
  while (!done()) {
    if (cluster.now() >= until) return false;
    cluster.advance(STEP_MS);
  }
  return true;
}

/**
 * A pod's readiness as Kubernetes and Strimzi see it, `/health` answering 200: the process runs and has joined the
 * group (the lab's 3.9 workers answer 503 until the join, the fidelity scenario `health-before-join`). A bounced
 * follower's tasks come back only when the scheduled delay expires, long after that.
 */
export function workerReady(cluster: SimCluster, name: string): boolean {
  const w = cluster.connect.worker(name);
  return w?.running === true && w.ready;
}

/** Every configured task RUNNING in the cluster's status (what a task-aware readiness gate reads). */
export function everyTaskRunning(cluster: SimCluster): boolean {
  const tasks = cluster.state().tasks;
  return tasks.length > 0 && tasks.every((t) => t.state === "RUNNING");
}

/** Worker names sorted by ordinal, lowest first (worker-1 … worker-12): the order of a PodSet's pod names. */
export function lowestOrdinalFirst(workers: readonly string[]): string[] {
  return highestOrdinalFirst(workers).reverse();
}

/**
 * Every worker up and ready (on the target version when given), no rebalance in progress or scheduled, no held
 * task, every configured task RUNNING on a running worker.
 */
export function isSettled(
  cluster: SimCluster,
  workers: readonly string[],
  totalTasks: number,
  targetVersion: string | null,
): boolean {
  if (cluster.connect.rebalancing()) return false;
  let assigned = 0;
  for (const name of workers) {
    const w = cluster.connect.worker(name);
    if (!w?.running || !w.ready) return false;
    if (targetVersion !== null && w.version !== targetVersion) return false;
    assigned += w.taskCount;
  }
  if (assigned !== totalTasks) return false;
  const state = cluster.state();
  if (state.delayDeadline !== null || state.heldTasks.length > 0) return false;
  const running = new Set(state.workers.filter((w) => w.state === "running").map((w) => w.workerId));
  return state.tasks.every((t) => t.state === "RUNNING" && t.workerId !== null && running.has(t.workerId));
}

/** Waits for the cluster to settle on the target version, then reads the ledger. */
export function finishRun(bc: BenchCluster): LedgerFigures {
  const { cluster } = bc;
  const settled = advanceUntil(
    cluster,
    () => isSettled(cluster, bc.workers, bc.totalTasks, bc.scenario.targetVersion),
    SETTLE_TIMEOUT_MS,
  );
  return ledgerFigures(cluster, bc.t0, bc.before, settled);
}

export function ledgerFigures(
  cluster: SimCluster,
  t0: number,
  before: CounterSnapshot,
  settled: boolean,
): LedgerFigures {
  const report = cluster.report();
  const counters = cluster.state().counters;
  return {
    wallMs: cluster.now() - t0,
    settled,
    perTaskDowntimeMs: Object.values(report.perTaskDowntimeMs),
    moves: report.taskMoves - before.moves,
    interruptions: report.taskInterruptions - before.interruptions,
    rebalances: counters.rebalances - before.rebalances,
    eagerRebalances: counters.eagerRebalances - before.eagerRebalances,
    peakShare: report.peakUnavailableShare,
    report,
  };
}

export function countersOf(cluster: SimCluster): CounterSnapshot {
  const c = cluster.state().counters;
  return {
    rebalances: c.rebalances,
    eagerRebalances: c.eagerRebalances,
    moves: c.taskMoves,
    interruptions: c.taskInterruptions,
  };
}

/**
 * Records the disruption counters at the moment the starting leader is first stopped (before its tasks stop):
 * what the follower steps cost when the leader goes last. `read()` is null while the leader has not gone.
 */
export function watchLeaderBounce(bc: BenchCluster): {
  read(): { moves: number; interruptions: number } | null;
  /** 1-based position of the starting leader among the workers in the order they first went down. */
  leaderPosition(): number | null;
  stop(): void;
} {
  let at: CounterSnapshot | null = null;
  const downOrder: string[] = [];
  const stop = bc.cluster.onEvent((event) => {
    if (event.kind !== "worker-down") return;
    if (!downOrder.includes(event.worker)) downOrder.push(event.worker);
    if (at !== null || event.worker !== bc.leader) return;
    at = countersOf(bc.cluster);
  });
  return {
    leaderPosition: () => {
      const i = bc.leader === null ? -1 : downOrder.indexOf(bc.leader);
      return i < 0 ? null : i + 1;
    },
    read: () =>
      at === null
        ? null
        : { moves: at.moves - bc.before.moves, interruptions: at.interruptions - bc.before.interruptions },
    stop,
  };
}

/** Worker names sorted by ordinal, highest first (worker-12 … worker-1). */
export function highestOrdinalFirst(workers: readonly string[]): string[] {
  const ordinal = (n: string) => Number(n.slice(n.lastIndexOf("-") + 1));
  return [...workers].sort((a, b) => ordinal(b) - ordinal(a));
}
