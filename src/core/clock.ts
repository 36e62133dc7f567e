/**
 * The time port, for code that waits. `core/` never reads the clock: its callers pass the time in. Clocks are taken
 * by the runner and the rollout service (the simulator's virtual time in tests, the demo and the benchmark:
 * src/composition/sim-runner-clock.ts), the lock keeper (renewals; `backgroundClock` by default) and the Slack thread
 * notifier (post spacing, update intervals, backoff); code that only stamps times (the stores, the use-cases) takes
 * a `now()` function instead. Wall clocks: `systemClock` and `backgroundClock` in src/jobs/runner/system-clock.ts.
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms` (of this clock's time); rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
