import { runFigures } from "../metrics.js";
import type { RunResult, Strategy } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import {
  advanceUntil,
  createBenchCluster,
  finishRun,
  lowestOrdinalFirst,
  watchLeaderBounce,
  workerReady,
} from "../sim-driver.js";

const READY_TIMEOUT_MS = 3600_000;

/**
 * Strimzi's `KafkaConnectRoller`: the pods in the order of their names (unready ones first; none here), each deleted
 * and then waited for until the pod is Ready, readiness being the worker's `/health` (200 before the worker has
 * joined the group). No task, leader or rebalance-delay logic. Not modelled: the kubelet's probe period (Pod Ready
 * can lag `/health` by up to `periodSeconds`), which only slows the roll down.
 */
export const STRIMZI_NOTE =
  "strimzi: pods in name order, each deleted and waited for until Ready (readiness = /health, which answers " +
  "before the worker has joined); the kubelet's probe period is not modelled.";

export const strimzi: Strategy = {
  id: "strimzi",
  label: "Strimzi KafkaConnectRoller",
  async run(scenario: Scenario, seed: number): Promise<RunResult> {
    const bc = createBenchCluster(scenario, seed);
    const { cluster } = bc;
    const watch = watchLeaderBounce(bc);
    for (const w of lowestOrdinalFirst(bc.workers)) {
      cluster.restartWorker(w, { version: scenario.targetVersion, downMs: 0 });
      advanceUntil(cluster, () => workerReady(cluster, w), READY_TIMEOUT_MS);
    }
    const toolDoneMs = cluster.now() - bc.t0;
    const f = finishRun(bc);
    watch.stop();
    cluster.close();
    return {
      strategy: "strimzi",
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
