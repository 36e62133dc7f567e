import type { ClusterSnapshot } from "../snapshot.js";
import type { RolloutState } from "./rollout-state.js";

/**
 * The workers the rollout went on without (`continue-without`) are out of the cluster it reads while they stay
 * unreachable: a later step's gate waits for the cluster of the workers that are left (their tasks reassigned among
 * them), not for one that was given up on. One that answers again counts like any other worker.
 */
export function withoutLeftBehind(s: RolloutState, snapshot: ClusterSnapshot): ClusterSnapshot {
  const left = new Set(s.steps.filter((x) => x.note?.kind === "not-back").map((x) => x.worker));
  if (left.size === 0) return snapshot;
  const workers = snapshot.workers.filter((w) => w.reachable || !left.has(w.name));
  return workers.length === snapshot.workers.length ? snapshot : { ...snapshot, workers };
}
