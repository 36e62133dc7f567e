/**
 * Differences between the simulator and real Kafka Connect that are understood and kept on purpose, each with how
 * much and why. `npm run fidelity` lists them as "known"; anything else that differs fails it.
 */
export interface KnownDifference {
  readonly scenario: string;
  readonly observation: string;
  readonly why: string;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [];
