/**
 * Our model of Kafka Connect's `IncrementalCooperativeAssignor.performTaskAssignment`
 * (docs/connect-behaviour.md#the-scheduled-rebalance-delay, #the-leader). All state lives in the instance, as in the
 * leader's memory: a new leader means a new instance.
 *
 * Two round shapes, chosen by `behaviour.revocationBackoff`:
 * - 3.4+ (KAFKA-12495): deleted and duplicated work is removed first, exact load-balancing revocations, revoked
 *   work leaves the loads before new work is water-filled, consecutive revoking rounds back off exponentially;
 * - older: `performTaskRevocation` (floor/ceil) guarded by `canRevoke`, new work water-filled onto loads that still
 *   include the work being revoked.
 */
import { AppError, ErrorCode } from "../../core/errors.js";
import {
  exponentialBackoff,
  performLoadBalancingRevocations,
  performTaskRevocation,
} from "./load-balancing.js";
import {
  createLostAssignmentState,
  handleLostAssignments,
  type LostAssignmentState,
} from "./lost-assignments.js";
import type {
  AssignmentRoundInput,
  AssignmentRoundResult,
  Assignor,
  AssignorBehaviour,
  MemberAssignment,
  MemberInput,
} from "./types.js";
import {
  addInto,
  assignConnectors,
  assignTasks,
  compareConnectors,
  duplicatedWork,
  emptyWorkSet,
  intersectionByMember,
  isEmptyWorkSet,
  mergeByMember,
  newlyAssigned,
  removeFromLoads,
  sortedDiff,
  sortedMembers,
  toConnectorsAndTasks,
  type WorkerLoad,
  type WorkSet,
  workerLoads,
  workSetOf,
} from "./worker-load.js";

/** The sets every round derives from the previous assignment, the configuration and the members' reports. */
interface RoundSets {
  readonly now: number;
  readonly members: readonly MemberInput[];
  readonly configured: WorkSet;
  readonly active: WorkSet;
  readonly deleted: WorkSet;
  readonly lost: WorkSet;
  readonly created: WorkSet;
}

/** What a round shape produces: the members' loads after this round (before revocations apply) and revocations. */
interface RoundOutcome {
  readonly current: readonly WorkerLoad[];
  readonly next: readonly WorkerLoad[];
  readonly toRevoke: Map<string, WorkSet>;
}

/** The incremental assignor plus read access to its state, for tests and for the simulator's introspection. */
export interface IncrementalAssignor extends Assignor {
  readonly kind: "incremental";
  /** Absolute time of the pending delayed rebalance (0 = none). */
  scheduledRebalance(): number;
  /** Member ids that showed up empty during the current delay window, in the order they were seen. */
  candidateWorkers(): readonly string[];
}

function validate(input: AssignmentRoundInput): void {
  const ids = new Set<string>();
  for (const m of input.members) {
    if (ids.has(m.memberId)) {
      throw new AppError(ErrorCode.SimInvalid, "Duplicate member id in assignment round", {
        details: { memberId: m.memberId, generation: input.generation },
      });
    }
    ids.add(m.memberId);
  }
}

export function createIncrementalAssignor(behaviour: AssignorBehaviour): IncrementalAssignor {
  if (!Number.isInteger(behaviour.maxDelayMs) || behaviour.maxDelayMs < 0) {
    throw new AppError(
      ErrorCode.SimInvalid,
      "scheduled.rebalance.max.delay.ms must be a non-negative integer",
      {
        details: { maxDelayMs: behaviour.maxDelayMs },
      },
    );
  }
  let previousAssignment = emptyWorkSet();
  const previousRevocation = emptyWorkSet();
  let previousGenerationId = -1;
  const lostState: LostAssignmentState = createLostAssignmentState();
  // 3.4+ only
  const backoff = exponentialBackoff(behaviour.maxDelayMs === 0 ? 0 : 1, 40, behaviour.maxDelayMs);
  let successiveRevokingRounds = 0;
  // before 3.4 only
  let canRevoke = true;

  function cooperativeRound(sets: RoundSets): RoundOutcome {
    const { now, members } = sets;
    const current = workerLoads(members, sets.deleted);
    const toRevoke = new Map<string, WorkSet>();
    const deletedToRevoke = intersectionByMember(sets.deleted, members);
    mergeByMember(toRevoke, deletedToRevoke);
    const duplicatedToRevoke = intersectionByMember(duplicatedWork(members), members);
    mergeByMember(toRevoke, duplicatedToRevoke);

    const next = workerLoads(members);
    removeFromLoads(next, deletedToRevoke);
    removeFromLoads(next, duplicatedToRevoke);

    const toReassign = handleLostAssignments(lostState, { now, lost: sets.lost, workers: next, behaviour });

    if (lostState.delay === 0) {
      const balancing = performLoadBalancingRevocations(sets.configured, next);
      if (lostState.revokedInPrevious && balancing.size > 0) {
        successiveRevokingRounds += 1;
        lostState.delay = backoff(successiveRevokingRounds);
        if (lostState.delay !== 0) {
          lostState.scheduledRebalance = now + lostState.delay;
        } else {
          mergeByMember(toRevoke, balancing);
          removeFromLoads(next, balancing);
        }
      } else if (balancing.size > 0) {
        mergeByMember(toRevoke, balancing);
        removeFromLoads(next, balancing);
        lostState.revokedInPrevious = true;
      } else if (lostState.revokedInPrevious) {
        lostState.revokedInPrevious = false;
        successiveRevokingRounds = 0;
      }
    } else {
      lostState.revokedInPrevious = false;
    }

    const toAssign = workSetOf(sets.created.connectors, sets.created.tasks);
    addInto(toAssign, toReassign);
    assignConnectors(next, toAssign.connectors);
    assignTasks(next, toAssign.tasks);
    return { current, next, toRevoke };
  }

  function legacyRound(sets: RoundSets): RoundOutcome {
    const { now, members } = sets;
    const current = workerLoads(members, sets.deleted);
    const toRevoke = intersectionByMember(sets.deleted, members);
    // Before 3.4 the duplicated revocations replaced (Map.putAll) a member's deleted revocations.
    for (const [worker, dup] of intersectionByMember(duplicatedWork(members), members))
      toRevoke.set(worker, dup);

    const complete = workerLoads(members, sets.deleted);
    const newSubmissions = workSetOf(sets.created.connectors, sets.created.tasks);
    addInto(
      newSubmissions,
      handleLostAssignments(lostState, { now, lost: sets.lost, workers: complete, behaviour }),
    );

    canRevoke = lostState.delay === 0 && canRevoke;
    if (canRevoke) {
      const variant = behaviour.roundRobinLostWork ? "ceil" : "floor";
      const revocations = performTaskRevocation(sets.active, current, variant);
      mergeByMember(toRevoke, revocations);
      canRevoke = revocations.size === 0;
    } else {
      canRevoke = lostState.delay === 0;
    }

    assignConnectors(complete, newSubmissions.connectors);
    assignTasks(complete, newSubmissions.tasks);
    return { current, next: complete, toRevoke };
  }

  function performAssignment(input: AssignmentRoundInput): AssignmentRoundResult {
    validate(input);
    const members = sortedMembers(input.members);
    if (members.length === 0) return { byMember: new Map(), delayMs: 0 };
    if (previousGenerationId !== input.lastCompletedGeneration) previousAssignment = emptyWorkSet();

    const configured = workSetOf(
      [...input.configured.connectors].sort(compareConnectors),
      input.configured.tasks,
    );
    const active = emptyWorkSet();
    for (const m of members) addInto(active, m.owned);

    if (!isEmptyWorkSet(previousRevocation)) {
      const stillRunning =
        [...previousRevocation.connectors].some((c) => active.connectors.has(c)) ||
        [...previousRevocation.tasks].some((t) => active.tasks.has(t));
      if (stillRunning) {
        // A previous revocation did not take effect (e.g. the assignment never arrived): start from what runs.
        previousAssignment = workSetOf(active.connectors, active.tasks);
        canRevoke = true;
      }
      previousRevocation.connectors.clear();
      previousRevocation.tasks.clear();
    }

    const deleted = sortedDiff(previousAssignment, configured);
    const sets: RoundSets = {
      now: input.now,
      members,
      configured,
      active,
      deleted,
      lost: sortedDiff(previousAssignment, active, deleted),
      created: sortedDiff(configured, previousAssignment, active),
    };
    const { current, next, toRevoke } = behaviour.revocationBackoff
      ? cooperativeRound(sets)
      : legacyRound(sets);

    // computePreviousAssignment: what will run after this round, plus the lost work still being tracked.
    const nextPrevious = emptyWorkSet();
    for (const load of next) addInto(nextPrevious, load);
    for (const revoked of toRevoke.values()) {
      for (const c of revoked.connectors) nextPrevious.connectors.delete(c);
      for (const t of revoked.tasks) nextPrevious.tasks.delete(t);
      addInto(previousRevocation, revoked);
    }
    addInto(nextPrevious, sets.lost);
    previousAssignment = nextPrevious;
    previousGenerationId = input.generation;
    lostState.previousMembers = new Set(members.map((m) => m.memberId));

    const assigned = newlyAssigned(next, current);
    const byMember = new Map<string, MemberAssignment>();
    for (const m of members) {
      byMember.set(m.memberId, {
        assigned: toConnectorsAndTasks(assigned.get(m.memberId)),
        revoked: toConnectorsAndTasks(toRevoke.get(m.memberId)),
      });
    }
    return { byMember, delayMs: lostState.delay };
  }

  return {
    kind: "incremental",
    performAssignment,
    scheduledRebalance: () => lostState.scheduledRebalance,
    candidateWorkers: () => [...lostState.candidates],
  };
}
