import { AppError, ErrorCode } from "../core/errors.js";

/** The error every adapter rejects with when the caller's signal aborts (never retried: the caller gave up). */
export function abortedError(workerName: string, signal: AbortSignal): AppError {
  return new AppError(ErrorCode.RestartFailed, `Restart of ${workerName} was aborted.`, {
    cause: signal.reason,
    retryable: false,
    details: { aborted: true, worker: workerName },
  });
}

/** Throws `abortedError` when the signal has already fired. */
export function throwIfAborted(workerName: string, signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(workerName, signal);
}

/** Waits `ms`; rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
