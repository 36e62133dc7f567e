import type { RunResult, Strategy } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import { everyTaskRunning, highestOrdinalFirst, workerReady } from "../sim-driver.js";
import { rollPodByPod } from "./pod-by-pod.js";

/**
 * The roll to do by hand: a StatefulSet rolling update (`maxUnavailable: 1`, highest ordinal first) whose readiness
 * gate waits until the worker answers and every task of the cluster is RUNNING in its status, not for the process
 * alone. A bounced follower's tasks wait out the scheduled delay before the gate opens, so each step costs a delay.
 */
export const statefulSetTasksReady: Strategy = {
  id: "statefulset-tasks-ready",
  label: "StatefulSet, tasks-ready gate",
  async run(scenario: Scenario, seed: number): Promise<RunResult> {
    return rollPodByPod(
      "statefulset-tasks-ready",
      scenario,
      seed,
      highestOrdinalFirst,
      (c, w) => workerReady(c, w) && everyTaskRunning(c),
    );
  },
};
