/**
 * Differences between the simulator and real Kafka Connect that are understood and kept on purpose, each with how
 * much and why. `npm run fidelity` lists them as "known"; anything else that differs fails it.
 */
export interface KnownDifference {
  readonly scenario: string;
  readonly observation: string;
  readonly why: string;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    scenario: "two-bounces-one-window",
    observation: "moves (between the window's workers)",
    why: "at the deadline the leader deals the window's held tasks round-robin over the returning workers in an order that follows member ids, random per start in Kafka and per seed in the simulator: 0 to all of the window's tasks swap workers (never to a worker outside the window)",
  },
];
