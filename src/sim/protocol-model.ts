import { atLeast, parseKafkaVersion } from "../core/version.js";

/**
 * The simulator's own model of Connect's group protocols: what a worker of a given version and `connect.protocol`
 * puts in its JoinGroup request, and how the broker's classic group coordinator picks the group's protocol from
 * them. Written from Kafka's source (`WorkerCoordinator.metadata()`, `IncrementalCooperativeConnectProtocol
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
const NEWEST_MODELLED_MAJOR = 4;

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
