import { runFigures } from "../metrics.js";
import type { RunResult, Strategy } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import {
  advanceUntil,
  createBenchCluster,
  finishRun,
  watchLeaderBounce,
  workerReady,
} from "../sim-driver.js";

/** Every worker restarted at t=0 with the new version; done when all are back and every task RUNNING. */
export const allAtOnce: Strategy = {
  id: "all-at-once",
  label: "all at once",
  async run(scenario: Scenario, seed: number): Promise<RunResult> {
    const bc = createBenchCluster(scenario, seed);
    const { cluster } = bc;
    const watch = watchLeaderBounce(bc);
    for (const w of bc.workers) cluster.restartWorker(w, { version: scenario.targetVersion, downMs: 0 });
    advanceUntil(cluster, () => bc.workers.every((w) => workerReady(cluster, w)), 3600_000);
    const toolDoneMs = cluster.now() - bc.t0;
    const f = finishRun(bc);
    watch.stop();
    cluster.close();
    return {
      strategy: "all-at-once",
      scenario: scenario.id,
      seed,
      figures: runFigures(f, toolDoneMs),
      note: f.settled ? null : "did not settle",
      leader: bc.leader,
      leaderPosition: null,
      bot: null,
      followerSteps: watch.read(),
    };
  },
};
