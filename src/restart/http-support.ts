import type { Dispatcher } from "undici";
import { AppError, ErrorCode } from "../core/errors.js";

/** A signal that fires after `timeoutMs` or when the caller's signal fires, whichever comes first. */
export function requestSignal(timeoutMs: number, signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([timeout, signal]) : timeout;
}

/** Reads at most `maxBytes` of a response body as text and discards the rest. */
export async function readBoundedText(
  body: Dispatcher.ResponseData["body"],
  maxBytes = 4096,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      chunks.push(buf.subarray(0, Math.max(0, maxBytes - size)));
      size += buf.length;
      if (size >= maxBytes) {
        truncated = size > maxBytes;
        break;
      }
    }
  } finally {
    if (!body.destroyed) body.destroy();
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return truncated ? `${text}…` : text;
}

/** Describes an endpoint without userinfo, path or query (which may carry secrets). */
export function describeEndpoint(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") return code;
  return errorCode((err as { cause?: unknown }).cause);
}

/**
 * Maps a transport failure (timeout, refused connection, reset) to `restart/failed`. Retryable unless the
 * caller's own signal aborted, in which case the error says so and is not retryable.
 */
export function transportFailure(
  err: unknown,
  what: string,
  workerName: string,
  callerSignal: AbortSignal | undefined,
): AppError {
  if (err instanceof AppError) return err;
  if (callerSignal?.aborted) {
    return new AppError(ErrorCode.RestartFailed, `Restart of ${workerName} was aborted during ${what}.`, {
      cause: err,
      retryable: false,
      details: { aborted: true, worker: workerName },
    });
  }
  const name = err instanceof Error ? err.name : "";
  const code = errorCode(err);
  const timedOut =
    name === "TimeoutError" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT";
  const reason = timedOut ? "timed out" : `failed (${code ?? (name || "error")})`;
  return new AppError(ErrorCode.RestartFailed, `Restart of ${workerName}: ${what} ${reason}.`, {
    cause: err,
    retryable: true,
    details: { worker: workerName, timedOut, ...(code === undefined ? {} : { errorCode: code }) },
  });
}
