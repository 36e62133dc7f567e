import type { RunResult, Strategy } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import { lowestOrdinalFirst, workerReady } from "../sim-driver.js";
import { rollPodByPod } from "./pod-by-pod.js";

/**
 * Strimzi's `KafkaConnectRoller`: the pods in the order of their names (unready ones first; none here), each deleted
 * and then waited for until the pod is Ready, readiness being the worker's `/health` (200 once the worker has joined
 * the group, before the scheduled delay hands its tasks back). No task, leader or rebalance-delay logic. Not modelled: the kubelet's probe period (Pod Ready
 * can lag `/health` by up to `periodSeconds`), which only slows the roll down.
 */
export const STRIMZI_NOTE =
  "strimzi: pods in name order, each deleted and waited for until Ready (readiness = /health, which answers " +
  "once the worker has joined, before its tasks are back); the kubelet's probe period is not modelled.";

export const strimzi: Strategy = {
  id: "strimzi",
  label: "Strimzi KafkaConnectRoller",
  async run(scenario: Scenario, seed: number): Promise<RunResult> {
    return rollPodByPod("strimzi", scenario, seed, lowestOrdinalFirst, (c, w) => workerReady(c, w));
  },
};
