import type { SimState } from "../../src/sim/sim-types.js";
import type { RunResult, Strategy } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import { advanceUntil, createBenchCluster, lowestOrdinalFirst, watchLeaderBounce } from "../sim-driver.js";
import { finishRoll } from "./pod-by-pod.js";

/**
 * Leader rotation: each step stops the worker that leads at that moment. A new leader remembers no assignment, so it
 * hands the departed leader's tasks out at once instead of holding them for the scheduled delay. The broker picks the
 * new leader among the members left, arbitrarily (the first of a hash map keyed by member ids, which carry a random
 * UUID), so once a restarted worker leads, the workers left go as followers (lowest ordinal first), one at a time,
 * their tasks held until the delay's deadline.
 * - `serial`: the next step waits until the last worker is back and running tasks again (its return moves some tasks
 *   to it, in a revocation round and a follow-up) with every task running.
 * - `pipelined`: the next leader is stopped as soon as the last leader's tasks run again, while that worker may still
 *   be restarting: a worker that is down is no member, so it cannot be picked to lead. At most `ROTATION_IN_FLIGHT`
 *   workers are down at once (a stopped leader's tasks already run elsewhere: only the one leaving holds data back).
 */
export type RotationMode = "serial" | "pipelined";

export const ROTATION_IN_FLIGHT = 2;

export const LEADER_ROTATION_NOTE =
  "leader-rotation: stops the current leader, the next step once the last worker is back with tasks and every task " +
  "runs; a follower (held until the deadline) only when a restarted worker leads. -pipelined: the next leader as " +
  `soon as every task runs again, with up to ${ROTATION_IN_FLIGHT} workers down.`;

/** What the next step can be, read from the cluster's state. */
export type RotationMove =
  | { readonly kind: "leader"; readonly worker: string }
  | { readonly kind: "follower"; readonly worker: string }
  | { readonly kind: "wait" };

/**
 * The next move of a rotation: the leader when it is one of the workers left, else the lowest-ordinal worker left,
 * once the last step is over. A leader step needs every task running, the new leader known and not in flight (and,
 * `serial`, every restarted worker back with tasks); a follower step needs nothing in flight as well.
 */
export function nextRotationMove(
  state: Pick<SimState, "leader" | "heldTasks" | "workers">,
  left: readonly string[],
  inFlight: readonly string[],
  mode: RotationMode,
): RotationMove {
  const first = lowestOrdinalFirst(left)[0];
  const leader = state.leader;
  if (first === undefined || state.heldTasks.length > 0 || leader === null || inFlight.includes(leader))
    return { kind: "wait" };
  // With fewer tasks than workers a worker may rightly run none: then being back is enough.
  const tasks = state.workers.reduce((n, w) => n + w.tasks.length, 0);
  const idle = state.workers.some(
    (w) => !left.includes(w.name) && (!w.joined || (tasks >= state.workers.length && w.tasks.length === 0)),
  );
  if (left.includes(leader)) {
    const ready = mode === "serial" ? inFlight.length === 0 && !idle : inFlight.length < ROTATION_IN_FLIGHT;
    return ready ? { kind: "leader", worker: leader } : { kind: "wait" };
  }
  return inFlight.length === 0 && !idle ? { kind: "follower", worker: first } : { kind: "wait" };
}

const STEP_TIMEOUT_MS = 3600_000;

function rotationStrategy(id: "leader-rotation" | "leader-rotation-pipelined", mode: RotationMode): Strategy {
  return {
    id,
    label: mode === "serial" ? "leader rotation" : "leader rotation (pipelined)",
    run: (scenario, seed) => Promise.resolve(runRotation(id, mode, scenario, seed)),
  };
}

export const leaderRotation = rotationStrategy("leader-rotation", "serial");
export const leaderRotationPipelined = rotationStrategy("leader-rotation-pipelined", "pipelined");

function runRotation(
  id: "leader-rotation" | "leader-rotation-pipelined",
  mode: RotationMode,
  scenario: Scenario,
  seed: number,
): RunResult {
  const bc = createBenchCluster(scenario, seed);
  const { cluster } = bc;
  const watch = watchLeaderBounce(bc);
  const left = [...bc.workers];
  const inFlight: string[] = [];
  const back = (name: string) => {
    const w = cluster.state().workers.find((x) => x.name === name);
    return w?.state === "running" && w.joined;
  };
  while (left.length > 0 || inFlight.length > 0) {
    let move: RotationMove = { kind: "wait" };
    const ok = advanceUntil(
      cluster,
      () => {
        for (const w of [...inFlight]) if (back(w)) inFlight.splice(inFlight.indexOf(w), 1);
        if (left.length === 0) return inFlight.length === 0;
        move = nextRotationMove(cluster.state(), left, inFlight, mode);
        return move.kind !== "wait";
      },
      STEP_TIMEOUT_MS,
    );
    if (!ok) throw new Error(`leader-rotation: no next step within ${STEP_TIMEOUT_MS / 1000} s`);
    const chosen = move as RotationMove;
    if (chosen.kind === "wait") break;
    left.splice(left.indexOf(chosen.worker), 1);
    inFlight.push(chosen.worker);
    cluster.restartWorker(chosen.worker, { version: scenario.targetVersion, downMs: 0 });
    // The stop must be seen before the next decision reads the state.
    cluster.advance(1);
  }
  return finishRoll(id, bc, watch);
}
