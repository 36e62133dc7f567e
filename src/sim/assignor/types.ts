/**
 * The contract between the simulated group coordinator (src/sim) and the assignors that model Kafka's
 * `IncrementalCooperativeAssignor` and `EagerAssignor` (docs/connect-behaviour.md#the-scheduled-rebalance-delay,
 * #the-leader). Pure data, no clock reads: the caller passes `now`.
 */

/** Connectors by name, tasks as "connector/N". */
export interface ConnectorsAndTasks {
  readonly connectors: readonly string[];
  readonly tasks: readonly string[];
}

/** One group member as the leader sees it in JoinGroup: its member id and the assignment it reports holding. */
export interface MemberInput {
  /** New on every process start (Connect has no static membership). Assignor tie-breaks use it. */
  readonly memberId: string;
  /** What the member reports as its current assignment (empty for a freshly started process). */
  readonly owned: ConnectorsAndTasks;
}

export interface AssignmentRoundInput {
  readonly now: number;
  /** Generation of this rebalance. */
  readonly generation: number;
  /** The generation the coordinator last completed (passed as `lastCompletedGenerationId`). */
  readonly lastCompletedGeneration: number;
  readonly members: readonly MemberInput[];
  /** Everything the config topic holds (the "configured" set). */
  readonly configured: ConnectorsAndTasks;
}

export interface MemberAssignment {
  /** Newly assigned in this round (to start). */
  readonly assigned: ConnectorsAndTasks;
  /** To stop in this round. */
  readonly revoked: ConnectorsAndTasks;
}

export interface AssignmentRoundResult {
  readonly byMember: ReadonlyMap<string, MemberAssignment>;
  /** The scheduled rebalance delay sent to every member (0 = none). */
  readonly delayMs: number;
}

/**
 * Behaviour switches that differ by the leader's Kafka version
 * (docs/connect-behaviour.md#the-scheduled-rebalance-delay).
 */
export interface AssignorBehaviour {
  /** scheduled.rebalance.max.delay.ms of the leader. */
  readonly maxDelayMs: number;
  /** KAFKA-12495 (3.4+): exact load-balancing revocations + exponential backoff of consecutive revoking rounds. */
  readonly revocationBackoff: boolean;
  /** KAFKA-15693 (3.5.2/3.6.1/3.7.0+): maxDelay 0 reassigns lost work at once; before, it stayed unassigned. */
  readonly zeroDelayReassignsImmediately: boolean;
  /** KAFKA-10413 (2.6.2/2.7.1/2.8.0+): lost work round-robin over all candidates; before, one candidate got all. */
  readonly roundRobinLostWork: boolean;
}

/** An assignor instance lives in the leader's memory; a new leader gets a fresh one (empty state). */
export interface Assignor {
  readonly kind: "incremental" | "eager";
  performAssignment(input: AssignmentRoundInput): AssignmentRoundResult;
}
