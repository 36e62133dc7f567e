/**
 * The only way anything outside `core/` learns the time. `core/` itself never reads it: time is passed in.
 * Real time in production; virtual time in tests and benchmarks (the simulator's clock).
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms` (of this clock's time); rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
