/**
 * Picks the assignor a Connect group leader of a given Kafka version would run for the negotiated protocol, with
 * the version-dependent behaviour switches of docs/connect-behaviour.md#the-scheduled-rebalance-delay.
 */
import { parseKafkaVersion } from "../../core/version.js";
import {
  backsOffRevokingRounds,
  NEWEST_MODELLED_MAJOR,
  reassignsAtOnceWithZeroDelay,
  roundRobinsLostWork,
  type SimProtocol,
} from "../protocol-model.js";
import { createEagerAssignor } from "./eager-assignor.js";
import { createIncrementalAssignor } from "./incremental-assignor.js";
import type { Assignor, AssignorBehaviour } from "./types.js";

export interface VersionBehaviour {
  readonly behaviour: AssignorBehaviour;
  /**
   * False when the version is not an Apache Kafka version we vouch for (unparseable, or a major above 4 such as
   * Confluent Platform's "7.6.0-ce"): the oldest behaviour was assumed.
   */
  readonly known: boolean;
}

/** The incremental assignor's switches for a leader of `leaderVersion`; unknown versions get the oldest behaviour. */
export function behaviourForVersion(leaderVersion: string, maxDelayMs: number): VersionBehaviour {
  const v = parseKafkaVersion(leaderVersion);
  const known = v !== null && v.major <= NEWEST_MODELLED_MAJOR;
  return {
    behaviour: {
      maxDelayMs,
      revocationBackoff: known && backsOffRevokingRounds(leaderVersion),
      zeroDelayReassignsImmediately: known && reassignsAtOnceWithZeroDelay(leaderVersion),
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
