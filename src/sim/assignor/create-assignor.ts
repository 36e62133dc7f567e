/**
 * Picks the assignor a Connect group leader of a given Kafka version would run for the negotiated protocol, with
 * the version-dependent behaviour switches of docs/connect-behaviour.md#the-scheduled-rebalance-delay.
 */
import { hasRevocationBackoff, reassignsImmediatelyWithZeroDelay } from "../../core/protocol.js";
import { atLeast, parseKafkaVersion } from "../../core/version.js";
import type { SimProtocol } from "../protocol-model.js";
import { createEagerAssignor } from "./eager-assignor.js";
import { createIncrementalAssignor } from "./incremental-assignor.js";
import type { Assignor, AssignorBehaviour } from "./types.js";

/** KAFKA-10413 (2.6.2, 2.7.1, 2.8.0+): lost work is dealt round-robin over all candidates, not to one. */
export function roundRobinsLostWork(version: string): boolean {
  const v = parseKafkaVersion(version);
  if (!v) return false;
  if (atLeast(v, 2, 8)) return true;
  if (v.major === 2 && v.minor === 7) return v.patch >= 1;
  if (v.major === 2 && v.minor === 6) return v.patch >= 2;
  return false;
}

export interface VersionBehaviour {
  readonly behaviour: AssignorBehaviour;
  /**
   * False when the version is not an Apache Kafka version we vouch for (unparseable, or a major above 4 such as
   * Confluent Platform's "7.6.0-ce"): the oldest behaviour was assumed.
   */
  readonly known: boolean;
}

/** Highest Kafka major version whose assignor behaviour we vouch for (the same bound as protocol-model.ts). */
const MAX_KNOWN_MAJOR = 4;

/** The incremental assignor's switches for a leader of `leaderVersion`; unknown versions get the oldest behaviour. */
export function behaviourForVersion(leaderVersion: string, maxDelayMs: number): VersionBehaviour {
  const v = parseKafkaVersion(leaderVersion);
  const known = v !== null && v.major <= MAX_KNOWN_MAJOR;
  return {
    behaviour: {
      maxDelayMs,
      revocationBackoff: known && hasRevocationBackoff(leaderVersion),
      zeroDelayReassignsImmediately: known && reassignsImmediatelyWithZeroDelay(leaderVersion),
      roundRobinLostWork: known && roundRobinsLostWork(leaderVersion),
    },
    known,
  };
}

export interface CreateAssignorOptions {
  /** The protocol the group negotiated this generation (see `selectGroupProtocol`). */
  readonly protocol: SimProtocol;
  /** The leader's Kafka version, as `GET /` reports it. */
  readonly leaderVersion: string;
  /** The leader's `scheduled.rebalance.max.delay.ms`. */
  readonly maxDelayMs: number;
}

/**
 * A fresh assignor with empty state, as a newly elected leader has. `compatible` and `sessioned` both run the
 * incremental cooperative assignor; `eager` runs the eager one. Call again when the leader or the protocol changes.
 */
export function createAssignor(options: CreateAssignorOptions): Assignor {
  if (options.protocol === "eager") return createEagerAssignor();
  return createIncrementalAssignor(behaviourForVersion(options.leaderVersion, options.maxDelayMs).behaviour);
}
