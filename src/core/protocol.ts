import { atLeast, parseKafkaVersion } from "./version.js";

/**
 * The Connect group sub-protocols, in our names; Kafka calls eager "default"
 * (docs/connect-behaviour.md#protocol-negotiation).
 */
export type ConnectProtocol = "eager" | "compatible" | "sessioned";

/** What a worker is configured with; `null` means "the version's default". */
export type ConnectProtocolSetting = ConnectProtocol | null;

export const PROTOCOL_RANK: Readonly<Record<ConnectProtocol, number>> = {
  eager: 0,
  compatible: 1,
  sessioned: 2,
};

export interface ProtocolSupport {
  /** The protocols the worker advertises in its JoinGroup, most preferred first. */
  readonly advertised: readonly ConnectProtocol[];
  /** False when the version could not be recognised: the caller must assume the worst (eager) and say so. */
  readonly known: boolean;
}

/** Highest Kafka major version whose protocol behaviour we vouch for. 4.x docs describe the same rules. */
const MAX_KNOWN_MAJOR = 4;

/**
 * ≤2.2 → default only; 2.3 → compatible (default) or eager; 2.4+ → sessioned (default),
 * compatible or eager. `connect.protocol=eager` always advertises only `default`.
 */
export function protocolSupport(version: string, setting: ConnectProtocolSetting): ProtocolSupport {
  const v = parseKafkaVersion(version);
  if (!v || v.major > MAX_KNOWN_MAJOR) return { advertised: ["eager"], known: false };
  if (!atLeast(v, 2, 3)) return { advertised: ["eager"], known: true };
  if (setting === "eager") return { advertised: ["eager"], known: true };
  const sessionedAvailable = atLeast(v, 2, 4);
  if (setting === "compatible" || !sessionedAvailable)
    return { advertised: ["compatible", "eager"], known: true };
  return { advertised: ["sessioned", "compatible", "eager"], known: true };
}

/**
 * The broker's choice (docs/connect-behaviour.md#protocol-negotiation): candidates are the protocols every member
 * supports; each member votes for its first candidate; most votes wins. With Connect's ordering this is the highest
 * common protocol. Returns null for an empty group.
 */
export function negotiateProtocol(members: readonly (readonly ConnectProtocol[])[]): ConnectProtocol | null {
  if (members.length === 0) return null;
  const [first, ...rest] = members;
  if (!first) return null;
  const candidates = first.filter((p) => rest.every((m) => m.includes(p)));
  if (candidates.length === 0) return "eager";
  const votes = new Map<ConnectProtocol, number>();
  for (const m of members) {
    const choice = m.find((p) => candidates.includes(p));
    if (choice) votes.set(choice, (votes.get(choice) ?? 0) + 1);
  }
  let best: ConnectProtocol = "eager";
  let bestVotes = -1;
  for (const p of candidates) {
    const n = votes.get(p) ?? 0;
    if (n > bestVotes || (n === bestVotes && PROTOCOL_RANK[p] > PROTOCOL_RANK[best])) {
      best = p;
      bestVotes = n;
    }
  }
  return best;
}

/** KAFKA-15693 (3.5.2, 3.6.1, 3.7.0+): with max delay 0 lost work is reassigned at once; before, it stayed unassigned. */
export function reassignsImmediatelyWithZeroDelay(version: string): boolean {
  const v = parseKafkaVersion(version);
  if (!v) return false;
  if (atLeast(v, 3, 7)) return true;
  if (v.major === 3 && v.minor === 6) return v.patch >= 1;
  if (v.major === 3 && v.minor === 5) return v.patch >= 2;
  return false;
}

/** KAFKA-12495 (3.4+): exact load-balancing revocations and backoff for consecutive revoking rounds. */
export function hasRevocationBackoff(version: string): boolean {
  const v = parseKafkaVersion(version);
  return v !== null && atLeast(v, 3, 4);
}

/** `GET /health` exists from 3.9 (KIP-1017). */
export function hasHealthEndpoint(version: string): boolean {
  const v = parseKafkaVersion(version);
  return v !== null && atLeast(v, 3, 9);
}
