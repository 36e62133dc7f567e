import { atLeast, parseKafkaVersion } from "../core/version.js";

/**
 * The simulator's own model of Connect's group protocols: what a worker of a given version and `connect.protocol`
 * puts in its JoinGroup request, how the broker's classic group coordinator picks the group's protocol from
 * them, and which of the assignor's version-dependent fixes a group leader carries (at the end). Written from Kafka's source (`WorkerCoordinator.metadata()`, `IncrementalCooperativeConnectProtocol
 * .metadataRequest`, `ConnectProtocol.metadataRequest`, `DistributedConfig`'s `connect.protocol` validator, and the
 * coordinator's `selectProtocol`/`candidateProtocols`/`vote` in `GroupMetadata.scala`, `MemberMetadata.scala` and
 * `ClassicGroup.java`), deliberately apart from the planner's own prediction in `src/core`: a mistake in one
 * shows up as a disagreement with the other, and the lab (a real cluster) says which one is right.
 * See docs/connect-behaviour.md#protocol-negotiation.
 */

/** JoinGroup protocol names, as Connect sends them (`ConnectProtocolCompatibility.protocol()`). */
export type JoinProtocolName = "default" | "compatible" | "sessioned";

/** The simulator's names (`GET /sim/state`, `connect.protocol` values): Kafka's enum EAGER travels as "default". */
export type SimProtocol = "eager" | "compatible" | "sessioned";

/** A worker's `connect.protocol`; null = not set (the version's default). */
export type SimProtocolSetting = SimProtocol | null;

/** The highest Kafka major version this model was written and checked for (4.1's jars still carry all three). */
export const NEWEST_MODELLED_MAJOR = 4;

export type WorkerProtocols =
  | {
      readonly kind: "joins";
      /** The mode the worker runs in: its `connect.protocol`, or the version's default. */
      readonly mode: SimProtocol;
      /** Its JoinGroup protocols, most preferred first. */
      readonly joinProtocols: readonly JoinProtocolName[];
    }
  | {
      /** The worker would not start (Kafka rejects the config), or the simulator has no model of the version. */
      readonly kind: "refused";
      readonly message: string;
    };

function joinProtocolsOf(mode: SimProtocol): readonly JoinProtocolName[] {
  switch (mode) {
    case "eager":
      // ConnectProtocol.metadataRequest: one protocol, "default".
      return ["default"];
    case "compatible":
      // IncrementalCooperativeConnectProtocol.metadataRequest(state, sessioned = false).
      return ["compatible", "default"];
    case "sessioned":
      // The same with sessioned = true: "order matters in terms of protocol preference".
      return ["sessioned", "compatible", "default"];
  }
}

/**
 * What a worker of `version` with `connect.protocol = setting` advertises when it joins.
 * - Before 2.3 there is no `connect.protocol` (an unknown setting is ignored with a warning): only "default".
 * - 2.3 knows EAGER and COMPATIBLE (default COMPATIBLE); `sessioned` fails config validation, the worker exits.
 * - 2.4 adds SESSIONED and makes it the default (KIP-507); unchanged through 4.x.
 */
export function workerProtocols(version: string, setting: SimProtocolSetting): WorkerProtocols {
  const v = parseKafkaVersion(version);
  if (!v) return { kind: "refused", message: `not a Kafka version: ${version}` };
  if (v.major > NEWEST_MODELLED_MAJOR)
    return {
      kind: "refused",
      message: `the simulator has no model of Kafka ${v.major}.x (it models up to ${NEWEST_MODELLED_MAJOR}.x)`,
    };
  if (!atLeast(v, 2, 3)) return { kind: "joins", mode: "eager", joinProtocols: joinProtocolsOf("eager") };
  const sessionedExists = atLeast(v, 2, 4);
  if (setting === "sessioned" && !sessionedExists)
    return {
      kind: "refused",
      message: `Kafka ${version} rejects connect.protocol=sessioned (Invalid Connect protocol compatibility): it knows eager and compatible`,
    };
  const mode: SimProtocol = setting ?? (sessionedExists ? "sessioned" : "compatible");
  return { kind: "joins", mode, joinProtocols: joinProtocolsOf(mode) };
}

/**
 * The classic group coordinator's `selectProtocol`: the candidates are the protocols every member lists; each member
 * votes for the first candidate in its own list; the protocol with the most votes wins. A member sharing no protocol
 * with the group is refused at JoinGroup (INCONSISTENT_GROUP_PROTOCOL), so every member has a candidate. On a tie the
 * broker takes whichever comes first in its hash map; Connect workers never tie (each lists a tail of one order, so
 * all vote alike), and here the first protocol voted for wins. Null for an empty group.
 */
export function selectGroupProtocol<P extends string>(members: readonly (readonly P[])[]): P | null {
  const [first, ...rest] = members;
  if (!first) return null;
  const candidates = new Set(first.filter((p) => rest.every((m) => m.includes(p))));
  const votes = new Map<P, number>();
  for (const m of members) {
    const vote = m.find((p) => candidates.has(p));
    if (vote === undefined) return null;
    votes.set(vote, (votes.get(vote) ?? 0) + 1);
  }
  let winner: P | null = null;
  let most = 0;
  for (const [p, n] of votes) {
    if (n > most) {
      winner = p;
      most = n;
    }
  }
  return winner;
}

/** Kafka's JoinGroup name to the simulator's name. */
export function simProtocolOf(name: JoinProtocolName): SimProtocol {
  return name === "default" ? "eager" : name;
}

/**
 * The protocol a group of these workers runs. Workers whose config Kafka refuses never reach the group (the simulator
 * refuses to start them), so they are left out here. Null for an empty group.
 */
export function groupProtocolOf(
  workers: readonly { readonly version: string; readonly connectProtocol: SimProtocolSetting }[],
): SimProtocol | null {
  const lists: (readonly JoinProtocolName[])[] = [];
  for (const w of workers) {
    const p = workerProtocols(w.version, w.connectProtocol);
    if (p.kind === "joins") lists.push(p.joinProtocols);
  }
  const chosen = selectGroupProtocol(lists);
  return chosen === null ? null : simProtocolOf(chosen);
}

/**
 * The fixes that change how a group leader's incremental cooperative assignor behaves, each as the first release of
 * every line that ships it, oldest line first (from the fix versions of the Kafka issues; see
 * docs/connect-behaviour.md#the-scheduled-rebalance-delay). Written apart from the planner's own version checks in
 * `src/core`, for the same reason as the protocols above.
 */
type FixedIn = readonly (readonly [major: number, minor: number, patch: number])[];

/** KAFKA-15693: with `scheduled.rebalance.max.delay.ms` 0, lost work is reassigned at once instead of staying unassigned. */
const ZERO_DELAY_REASSIGNS: FixedIn = [
  [3, 5, 2],
  [3, 6, 1],
  [3, 7, 0],
];

/** KAFKA-12495: load balancing revokes exactly the excess, and consecutive revoking rounds back off. */
const REVOCATION_BACKOFF: FixedIn = [[3, 4, 0]];

/** KAFKA-10413: lost work is dealt round-robin over all candidates, not all to one. */
const ROUND_ROBIN_LOST_WORK: FixedIn = [
  [2, 6, 2],
  [2, 7, 1],
  [2, 8, 0],
];

/**
 * True when `version` carries a fix: from its first release on a line that lists one, always on a later line, never
 * on an earlier one or on a version that does not parse.
 */
function carriesFix(version: string, fixedIn: FixedIn): boolean {
  const v = parseKafkaVersion(version);
  const newest = fixedIn.at(-1);
  if (!v || !newest) return false;
  const line = fixedIn.find(([major, minor]) => v.major === major && v.minor === minor);
  if (line) return v.patch >= line[2];
  return atLeast(v, newest[0], newest[1], newest[2]);
}

/** Whether a leader of `version` reassigns lost work at once when the scheduled delay is 0 (KAFKA-15693). */
export function reassignsAtOnceWithZeroDelay(version: string): boolean {
  return carriesFix(version, ZERO_DELAY_REASSIGNS);
}

/** Whether a leader of `version` backs off consecutive revoking rounds (KAFKA-12495). */
export function backsOffRevokingRounds(version: string): boolean {
  return carriesFix(version, REVOCATION_BACKOFF);
}

/** Whether a leader of `version` deals lost work round-robin over all candidates (KAFKA-10413). */
export function roundRobinsLostWork(version: string): boolean {
  return carriesFix(version, ROUND_ROBIN_LOST_WORK);
}
