import { AppError, ErrorCode } from "../core/errors.js";
import { TIMEOUT_CODES, TLS_CERT_CODES } from "./http-retry.js";

/** What went wrong with one HTTP attempt, as the AppError the Connect client throws: the mapping in one place. */

export interface AttemptContext {
  /** The request URL without credentials. */
  readonly url: string;
  readonly method: string;
  readonly timeoutMs: number;
  /** The attempt's own deadline fired. */
  readonly timedOut: boolean;
  /** Whether the headers had arrived ("body") or not yet ("request"). */
  readonly phase: "request" | "body";
}

function errorCodeOf(err: unknown): string | null {
  if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string")
    return err.code;
  return null;
}

/** The `message` of a Connect error body (`{"error_code": 409, "message": …}`), cut to 300 characters; else null. */
export function connectMessageOf(text: string): string | null {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && "message" in body && typeof body.message === "string") {
      return body.message.slice(0, 300);
    }
  } catch {
    // not JSON: no message to show
  }
  return null;
}

/**
 * A transport failure (undici's error, or our deadline's abort): `connect/timeout` (retryable), `connect/unreachable`
 * for a refused TLS certificate (not retryable: the configuration must change) or a connection that failed
 * (retryable), `connect/bad-response` for a body cut short (retryable).
 */
export function attemptFailure(err: unknown, ctx: AttemptContext): AppError {
  const { url: safeUrl, phase } = ctx;
  const details = { url: safeUrl, method: ctx.method };
  const code = errorCodeOf(err);
  if (ctx.timedOut || (code !== null && TIMEOUT_CODES.has(code))) {
    return new AppError(ErrorCode.ConnectTimeout, `No answer from ${safeUrl} within ${ctx.timeoutMs} ms`, {
      cause: err,
      retryable: true,
      details: { ...details, timeoutMs: ctx.timeoutMs, phase },
    });
  }
  if (code !== null && TLS_CERT_CODES.has(code)) {
    return new AppError(
      ErrorCode.ConnectUnreachable,
      `The TLS certificate of ${safeUrl} was rejected (${code})`,
      {
        cause: err,
        details: { ...details, reason: code },
      },
    );
  }
  if (phase === "body") {
    return new AppError(ErrorCode.ConnectBadResponse, `The answer from ${safeUrl} was cut short`, {
      cause: err,
      retryable: true,
      details: { ...details, reason: code ?? "body error" },
    });
  }
  return new AppError(
    ErrorCode.ConnectUnreachable,
    `Cannot reach ${safeUrl} (${code ?? "connection failed"})`,
    {
      cause: err,
      retryable: true,
      details: { ...details, reason: code },
    },
  );
}
