import type { SimCluster } from "../../src/sim/sim-cluster.js";
import { runFigures } from "../metrics.js";
import type { RunResult, StrategyId } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import {
  advanceUntil,
  type BenchCluster,
  createBenchCluster,
  finishRun,
  watchLeaderBounce,
} from "../sim-driver.js";

const READY_TIMEOUT_MS = 3600_000;

/**
 * A roll that restarts one pod at a time in a fixed order and waits for each until it is "ready", as a Kubernetes
 * controller does: the peers differ only in the order and in what readiness means.
 */
export function rollPodByPod(
  id: StrategyId,
  scenario: Scenario,
  seed: number,
  order: (workers: readonly string[]) => readonly string[],
  ready: (cluster: SimCluster, worker: string) => boolean,
): RunResult {
  const bc = createBenchCluster(scenario, seed);
  const { cluster } = bc;
  const watch = watchLeaderBounce(bc);
  for (const w of order(bc.workers)) {
    cluster.restartWorker(w, { version: scenario.targetVersion, downMs: 0 });
    advanceUntil(cluster, () => ready(cluster, w), READY_TIMEOUT_MS);
  }
  return finishRoll(id, bc, watch);
}

/** The end of a roll driven on the simulator: the figures from the first restart until now, the cluster closed. */
export function finishRoll(
  id: StrategyId,
  bc: BenchCluster,
  watch: ReturnType<typeof watchLeaderBounce>,
): RunResult {
  const { cluster, scenario, seed } = bc;
  const toolDoneMs = cluster.now() - bc.t0;
  const f = finishRun(bc);
  watch.stop();
  cluster.close();
  return {
    strategy: id,
    scenario: scenario.id,
    seed,
    figures: runFigures(f, toolDoneMs),
    note: f.settled ? null : "did not settle",
    leader: bc.leader,
    leaderPosition: watch.leaderPosition(),
    bot: null,
    followerSteps: watch.read(),
  };
}
