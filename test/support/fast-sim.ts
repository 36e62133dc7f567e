/**
 * A simulator in real time with every Connect timing scaled down (delay 600 ms, session timeout 1 s, restarts of
 * 200 ms), so a whole rollout with faults runs in seconds: what the Redis-fault and chaos harnesses roll.
 */
export const FAST_REAL_TIME_SIM = {
  virtualTime: false,
  version: "3.6.1",
  delayMs: 600,
  restartMs: 200,
  taskStartMs: 50,
  rebalanceMs: 30,
  sessionTimeoutMs: 1_000,
} as const;
