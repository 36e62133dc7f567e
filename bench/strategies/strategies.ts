import type { Strategy } from "../run-types.js";
import { allAtOnce } from "./all-at-once.js";
import { connectRoll, connectRollRotate, connectRollWindow } from "./connect-roll.js";
import { deployment } from "./deployment.js";
import { leaderRotation, leaderRotationPipelined } from "./leader-rotation.js";
import { statefulSetTasksReady } from "./statefulset-tasks-ready.js";
import { strimzi } from "./strimzi.js";

/** Every strategy the benchmark compares, in the order its tables and charts show them. */
export const STRATEGIES: readonly Strategy[] = [
  connectRoll,
  connectRollWindow,
  connectRollRotate,
  leaderRotation,
  leaderRotationPipelined,
  strimzi,
  statefulSetTasksReady,
  deployment,
  allAtOnce,
];
