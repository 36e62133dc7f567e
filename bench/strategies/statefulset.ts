import { runFigures } from "../metrics.js";
import type { RunResult, Strategy } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import {
  advanceUntil,
  createBenchCluster,
  finishRun,
  highestOrdinalFirst,
  watchLeaderBounce,
  workerReady,
} from "../sim-driver.js";

const READY_TIMEOUT_MS = 3600_000;

/**
 * StatefulSet / Strimzi-like roll: one pod at a time, highest ordinal first; the next as soon as the restarted
 * worker's readiness (`/health`: process up and first rebalance joined) passes, whatever its tasks do.
 */
export const statefulSet: Strategy = {
  id: "statefulset",
  label: "StatefulSet (Strimzi-like)",
  async run(scenario: Scenario, seed: number): Promise<RunResult> {
    const bc = createBenchCluster(scenario, seed);
    const { cluster } = bc;
    const watch = watchLeaderBounce(bc);
    const order = highestOrdinalFirst(bc.workers);
    for (const w of order) {
      cluster.restartWorker(w, { version: scenario.targetVersion, downMs: 0 });
      advanceUntil(cluster, () => workerReady(cluster, w), READY_TIMEOUT_MS);
    }
    const toolDoneMs = cluster.now() - bc.t0;
    const f = finishRun(bc);
    watch.stop();
    cluster.close();
    return {
      strategy: "statefulset",
      scenario: scenario.id,
      seed,
      figures: runFigures(f, toolDoneMs),
      note: f.settled ? null : "did not settle",
      leader: bc.leader,
      leaderPosition: watch.leaderPosition(),
      bot: null,
      followerSteps: watch.read(),
    };
  },
};
