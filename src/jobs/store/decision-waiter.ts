import type { DecisionRecord } from "./job-record.js";

/** What `waitForDecision` needs from an adapter. */
export interface DecisionWaitDeps {
  /** Reads the recorded decision, or null. */
  read(): Promise<DecisionRecord | null>;
  /**
   * Starts listening for "a decision may have been recorded" wake-ups; resolves with a function that
   * stops listening. Wake-ups are an optimisation: a failure to listen falls back to polling only.
   */
  listen(onWake: () => void): Promise<() => void>;
  signal: AbortSignal;
  pollMs: number;
}

/**
 * Waits until a decision is recorded: reads it, then sleeps until a wake-up or `pollMs`, and reads again.
 * Listening starts before the first read, so a decision recorded in between is never missed; a lost
 * wake-up only costs up to `pollMs`. Rejects with `signal.reason` when aborted, or with a read error.
 */
export async function waitForDecisionWith(deps: DecisionWaitDeps): Promise<DecisionRecord> {
  const { signal, pollMs } = deps;
  signal.throwIfAborted();
  let woken = false;
  let wake: (() => void) | null = null;
  const onWake = (): void => {
    woken = true;
    wake?.();
  };
  let unlisten = (): void => {};
  try {
    unlisten = await deps.listen(onWake);
  } catch {
    // Pub/sub unavailable: polling alone still finds the decision.
  }
  try {
    for (;;) {
      signal.throwIfAborted();
      woken = false;
      const decision = await deps.read();
      if (decision !== null) return decision;
      if (woken) continue;
      await new Promise<void>((resolve, reject) => {
        const finish = (): void => {
          cleanup();
          resolve();
        };
        const onAbort = (): void => {
          cleanup();
          reject(signal.reason);
        };
        const timer = setTimeout(finish, pollMs);
        function cleanup(): void {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          wake = null;
        }
        wake = finish;
        signal.addEventListener("abort", onAbort, { once: true });
        if (signal.aborted) onAbort();
      });
    }
  } finally {
    unlisten();
  }
}
