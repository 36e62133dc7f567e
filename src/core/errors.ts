/**
 * One error type for the whole product. Branch on `code`, never on message text.
 * Expected outcomes (a gate that has not passed, a refused command) are values, not errors.
 */
export const ErrorCode = {
  ConfigInvalid: "config/invalid",
  ConfigNotFound: "config/not-found",
  UsageInvalid: "usage/invalid",
  VersionInvalid: "version/invalid",
  ClusterUnknown: "cluster/unknown",
  ConnectUnreachable: "connect/unreachable",
  ConnectTimeout: "connect/timeout",
  ConnectHttpStatus: "connect/http-status",
  ConnectBadResponse: "connect/bad-response",
  ConnectRebalancing: "connect/rebalancing",
  RestartFailed: "restart/failed",
  RestartRefused: "restart/refused",
  LockHeld: "lock/held",
  LockLost: "lock/lost",
  StoreUnavailable: "store/unavailable",
  StoreCorrupt: "store/corrupt",
  JobNotFound: "job/not-found",
  SimInvalid: "sim/invalid",
  SlackApi: "slack/api",
  Internal: "internal",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface AppErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  details?: Readonly<Record<string, unknown>>;
}

export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
}

export function isAppError(value: unknown, code?: ErrorCode): value is AppError {
  return value instanceof AppError && (code === undefined || value.code === code);
}

/** Turns any thrown value into an AppError, keeping the original as `cause`. */
export function toAppError(value: unknown, fallback: ErrorCode = ErrorCode.Internal): AppError {
  if (value instanceof AppError) return value;
  if (value instanceof Error) return new AppError(fallback, value.message, { cause: value });
  return new AppError(fallback, String(value), { cause: value });
}
