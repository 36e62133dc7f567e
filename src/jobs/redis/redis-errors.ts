import { AppError, ErrorCode } from "../../core/errors.js";

/**
 * The one place where Redis failures become AppErrors.
 * Lua scripts signal refusals with `redis.error_reply("<CODE> <detail>")`; the codes are:
 * - `LOCK_LOST`     → `lock/lost` (the lease no longer holds the lock, or its fence is stale)
 * - `JOB_NOT_FOUND` → `job/not-found`
 * - `JOB_EXISTS`    → `internal` (a caller reused a job id: a bug, not an outcome)
 * Anything else (connection refused, command timeout, OOM, NOSCRIPT after a retry) → `store/unavailable`,
 * retryable.
 */
const LUA_ERRORS: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  LOCK_LOST: { code: ErrorCode.LockLost, message: "lock lost: the lease no longer holds the cluster lock" },
  JOB_NOT_FOUND: { code: ErrorCode.JobNotFound, message: "job not found" },
  JOB_EXISTS: { code: ErrorCode.Internal, message: "job already exists" },
};

/** Context added to the error's details (which operation, which key). */
export interface RedisErrorContext {
  operation: string;
  key?: string;
}

/** Converts whatever a Redis call threw into an AppError. AppErrors pass through unchanged. */
export function toStoreError(error: unknown, context: RedisErrorContext): AppError {
  if (error instanceof AppError) return error;
  const text = error instanceof Error ? error.message : String(error);
  const [first = "", ...rest] = text.split(" ");
  const mapped = LUA_ERRORS[first];
  const details = { ...context, reply: text };
  if (mapped !== undefined) {
    const suffix = rest.length > 0 ? ` (${rest.join(" ")})` : "";
    return new AppError(mapped.code, `${context.operation}: ${mapped.message}${suffix}`, {
      cause: error,
      details,
    });
  }
  // ioredis says this when a command is sent while the connection is down (no offline queue, by design).
  const said = /Stream isn't writeable/.test(text)
    ? "not connected (the connection dropped; reconnecting)"
    : text;
  return new AppError(ErrorCode.StoreUnavailable, `${context.operation}: redis failed: ${said}`, {
    cause: error,
    retryable: true,
    details,
  });
}
