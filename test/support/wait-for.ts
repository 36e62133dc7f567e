/**
 * The one way a test waits for something another party makes true: a server, a child process, a timer in the code
 * under test, the simulator running in real time. No test sleeps to let something happen; it waits for it.
 */

export interface WaitForOptions {
  /** How long to wait before failing. Default 10 000 ms (the test's own timeout is 30 s). */
  readonly timeoutMs?: number;
  /** How long to wait between two probes. Default 10 ms. */
  readonly intervalMs?: number;
}

/** What `waitFor` resolves with: the probe's first value other than `undefined`, `null` or `false`. */
export type Found<T> = Exclude<T, undefined | null | false>;

/**
 * Probes until `probe` returns something other than `undefined`, `null` or `false`, and resolves with it (a boolean
 * condition resolves with `true`; a lookup with what it found). After `timeoutMs` it rejects naming `what`, e.g.
 * "timed out after 5000 ms waiting for the parent message". An error the probe throws rejects at once.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Found<T>> {
  const { timeoutMs = 10_000, intervalMs = 10 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value as Found<T>;
    if (performance.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
