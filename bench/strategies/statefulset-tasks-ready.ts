import { runFigures } from "../metrics.js";
import type { RunResult, Strategy } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import {
  advanceUntil,
  createBenchCluster,
  everyTaskRunning,
  finishRun,
  highestOrdinalFirst,
  watchLeaderBounce,
  workerReady,
} from "../sim-driver.js";

const READY_TIMEOUT_MS = 3600_000;

/**
 * The roll to do by hand: a StatefulSet rolling update (`maxUnavailable: 1`, highest ordinal first) whose readiness
 * gate waits until the worker answers and every task of the cluster is RUNNING in its status, not for the process
 * alone. A bounced follower's tasks wait out the scheduled delay before the gate opens, so each step costs a delay.
 */
export const statefulSetTasksReady: Strategy = {
  id: "statefulset-tasks-ready",
  label: "StatefulSet, tasks-ready gate",
  async run(scenario: Scenario, seed: number): Promise<RunResult> {
    const bc = createBenchCluster(scenario, seed);
    const { cluster } = bc;
    const watch = watchLeaderBounce(bc);
    for (const w of highestOrdinalFirst(bc.workers)) {
      cluster.restartWorker(w, { version: scenario.targetVersion, downMs: 0 });
      advanceUntil(cluster, () => workerReady(cluster, w) && everyTaskRunning(cluster), READY_TIMEOUT_MS);
    }
    const toolDoneMs = cluster.now() - bc.t0;
    const f = finishRun(bc);
    watch.stop();
    cluster.close();
    return {
      strategy: "statefulset-tasks-ready",
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
