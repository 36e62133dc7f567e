/**
 * Kafka's `IncrementalCooperativeAssignor.handleLostAssignments`
 * (docs/connect-behaviour.md#the-scheduled-rebalance-delay): decides whether work that vanished with a departed member
 * is held for the scheduled rebalance delay, handed to returning members at expiry, or reassigned at once as new work.
 */
import type { AssignorBehaviour } from "./types.js";
import {
  addInto,
  compareStrings,
  emptyWorkSet,
  isEmptyWorkSet,
  loadIsEmpty,
  type WorkerLoad,
  type WorkSet,
} from "./worker-load.js";

/** The delay-window part of the leader's in-memory assignor state. */
export interface LostAssignmentState {
  /** Absolute time (ms) of the pending expiry rebalance; 0 = none. */
  scheduledRebalance: number;
  /** The delay the current round sends to every member. */
  delay: number;
  /** Members seen with an empty load during the window, in insertion order (Java `LinkedHashSet`). */
  readonly candidates: Set<string>;
  /** The member ids of the previous round. */
  previousMembers: ReadonlySet<string>;
  /** KAFKA-12495: the previous round made load-balancing revocations. */
  revokedInPrevious: boolean;
}

export function createLostAssignmentState(): LostAssignmentState {
  return {
    scheduledRebalance: 0,
    delay: 0,
    candidates: new Set(),
    previousMembers: new Set(),
    revokedInPrevious: false,
  };
}

function resetDelay(state: LostAssignmentState): void {
  state.candidates.clear();
  state.scheduledRebalance = 0;
  state.delay = 0;
}

export interface LostAssignmentRound {
  readonly now: number;
  /** Lost work, ordered like Kafka's `TreeSet` diff. */
  readonly lost: WorkSet;
  /** The members' loads this round; lost work given to candidates at expiry is appended to them. */
  readonly workers: readonly WorkerLoad[];
  readonly behaviour: AssignorBehaviour;
}

/** `calculateDelay`: the time left until the scheduled rebalance, capped at the max delay. */
function remainingDelay(state: LostAssignmentState, now: number, maxDelayMs: number): number {
  const diff = state.scheduledRebalance - now;
  return diff > 0 ? Math.min(diff, maxDelayMs) : 0;
}

/**
 * Returns the lost work to reassign as new work this round (possibly empty). Mutates `state` and, at expiry with
 * candidates present, the candidates' loads in `round.workers`.
 */
export function handleLostAssignments(state: LostAssignmentState, round: LostAssignmentRound): WorkSet {
  const { now, lost, workers, behaviour } = round;
  const toReassign = emptyWorkSet();
  if (isEmptyWorkSet(lost) && !state.revokedInPrevious) {
    resetDelay(state);
    return toReassign;
  }

  const active = new Set(workers.map((w) => w.worker));
  const allPreviousPresent = [...state.previousMembers].every((m) => active.has(m));
  if (state.scheduledRebalance <= 0 && allPreviousPresent) {
    // KAFKA-9848: nobody left, so the "lost" work is most likely an assignment that never arrived.
    addInto(toReassign, lost);
    return toReassign;
  }
  if (behaviour.maxDelayMs === 0 && behaviour.zeroDelayReassignsImmediately) {
    // KAFKA-15693
    addInto(toReassign, lost);
    return toReassign;
  }

  if (state.scheduledRebalance > 0 && now >= state.scheduledRebalance) {
    const byWorker = new Map(workers.map((w) => [w.worker, w] as const));
    const present = [...state.candidates].flatMap((id) => {
      const load = byWorker.get(id);
      return load ? [load] : [];
    });
    // KAFKA-10413: round-robin over every candidate still present; before it, the first one got everything.
    const candidates = behaviour.roundRobinLostWork ? present : present.slice(0, 1);
    if (candidates.length > 0) {
      let i = 0;
      for (const connector of lost.connectors) {
        candidates[i % candidates.length]?.connectors.push(connector);
        i += 1;
      }
      i = 0;
      for (const task of lost.tasks) {
        candidates[i % candidates.length]?.tasks.push(task);
        i += 1;
      }
    } else {
      addInto(toReassign, lost);
    }
    resetDelay(state);
    state.revokedInPrevious = false;
    return toReassign;
  }

  // Start or continue the window: remember who showed up empty and send the (remaining) delay.
  for (const w of [...workers].filter(loadIsEmpty).sort((a, b) => compareStrings(a.worker, b.worker))) {
    state.candidates.add(w.worker);
  }
  state.delay =
    now < state.scheduledRebalance ? remainingDelay(state, now, behaviour.maxDelayMs) : behaviour.maxDelayMs;
  state.scheduledRebalance = now + state.delay;
  return toReassign;
}
