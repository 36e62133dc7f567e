import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import { Agent, request } from "undici";
import { AppError, ErrorCode } from "../core/errors.js";
import { createAbortFanout } from "./abort-fanout.js";
import { attemptFailure, connectMessageOf } from "./http-failures.js";
import { backoffDelay, RETRY_STATUSES, RETRYABLE_STATUSES } from "./http-retry.js";
import { authFromUrl, basicAuthHeader, type HttpAuth, redactUrl } from "./url-credentials.js";

/**
 * A small HTTP client for one Connect cluster: one undici Agent, a deadline on every attempt (connect, headers and
 * body), bounded retries with exponential backoff and jitter, basic auth that never reaches logs or errors, a body
 * size limit and a count of the calls made.
 */

export interface HttpTlsOptions {
  /** PEM contents of the CA bundle (the composition root reads the configured `caFile`). */
  readonly ca?: string | null;
  /** Accept any server certificate. For test clusters only. */
  readonly insecureSkipVerify?: boolean;
}

export interface HttpClientOptions {
  /** Deadline of one attempt, from connecting to the last byte of the body. */
  readonly timeoutMs: number;
  /** Extra attempts after the first on connection errors, timeouts, 409 and 500. */
  readonly retries: number;
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  /** Bodies larger than this are refused (`connect/bad-response`). Default 32 MiB. */
  readonly maxBodyBytes?: number;
  readonly auth?: HttpAuth | null;
  readonly tls?: HttpTlsOptions | null;
  /** Injected for tests; defaults to a real timer. Rejects with the signal's reason when aborted. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected for tests; defaults to Math.random. */
  readonly random?: () => number;
  /** Called before every attempt (each retry too), for counting calls from outside. */
  readonly onAttempt?: () => void;
  readonly logger?: Logger;
}

export interface HttpRequest {
  readonly url: string;
  readonly method?: "GET" | "POST" | "PUT";
  /** Sent as JSON when present. */
  readonly json?: unknown;
  /** Statuses returned as values; any other is an error. Default: 200–299. */
  readonly accept?: readonly number[];
  /** Send the basic-auth header (default true). Metrics endpoints get false. */
  readonly withAuth?: boolean;
  readonly signal?: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  readonly text: string;
  /** The request URL without credentials. */
  readonly url: string;
}

export interface HttpJsonResponse {
  readonly status: number;
  readonly json: unknown;
  readonly url: string;
}

export interface HttpClient {
  send(req: HttpRequest): Promise<HttpResponse>;
  /** `send` plus JSON parsing; malformed JSON is `connect/bad-response`. */
  getJson(req: HttpRequest): Promise<HttpJsonResponse>;
  /** HTTP attempts made so far (every retry counts). */
  calls(): number;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Stops reading a body we refuse; its abort error has nobody to reach, so it is swallowed here. */
function discard(body: { on(event: "error", listener: () => void): unknown; destroy(): unknown }): void {
  body.on("error", () => undefined);
  body.destroy();
}

function createAgent(options: HttpClientOptions): Agent {
  const connect: { timeout: number; ca?: string; rejectUnauthorized?: boolean } = {
    timeout: options.timeoutMs,
  };
  if (options.tls?.ca) connect.ca = options.tls.ca;
  if (options.tls?.insecureSkipVerify) connect.rejectUnauthorized = false;
  return new Agent({ connect, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const agent = createAgent(options);
  const onAbortOf = createAbortFanout();
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const baseMs = options.backoffBaseMs ?? 200;
  const maxMs = options.backoffMaxMs ?? 5_000;
  const random = options.random ?? Math.random;
  const sleep =
    options.sleep ??
    (async (ms: number, signal?: AbortSignal) => {
      await delay(ms, undefined, signal ? { signal } : {});
    });
  let callCount = 0;
  let closing: Promise<void> | null = null;

  async function attempt(req: HttpRequest, target: URL, safeUrl: string): Promise<HttpResponse> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error("deadline exceeded"));
    }, options.timeoutMs);
    const unsubscribe = req.signal
      ? onAbortOf(req.signal, () => controller.abort(req.signal?.reason))
      : () => undefined;
    const details = { url: safeUrl, method: req.method ?? "GET" };
    let phase: "request" | "body" = "request";
    try {
      const headers: Record<string, string> = { accept: "application/json, text/plain;q=0.9, */*;q=0.5" };
      const auth = options.auth ?? authFromUrl(target);
      if (auth && req.withAuth !== false) headers.authorization = basicAuthHeader(auth);
      let body: string | undefined;
      if (req.json !== undefined) {
        body = JSON.stringify(req.json);
        headers["content-type"] = "application/json";
      }
      const bare = new URL(target);
      bare.username = "";
      bare.password = "";
      const res = await request(bare, {
        dispatcher: agent,
        method: req.method ?? "GET",
        headers,
        ...(body === undefined ? {} : { body }),
        signal: controller.signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      phase = "body";
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > maxBody) {
        discard(res.body);
        throw new AppError(ErrorCode.ConnectBadResponse, `The answer from ${safeUrl} is too large`, {
          details: { ...details, status: res.statusCode, bytes: declared, maxBytes: maxBody },
        });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
        size += buf.length;
        if (size > maxBody) {
          discard(res.body);
          throw new AppError(ErrorCode.ConnectBadResponse, `The answer from ${safeUrl} is too large`, {
            details: { ...details, status: res.statusCode, maxBytes: maxBody },
          });
        }
        chunks.push(buf);
      }
      return { status: res.statusCode, text: Buffer.concat(chunks).toString("utf8"), url: safeUrl };
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (req.signal?.aborted) throw req.signal.reason;
      throw attemptFailure(err, { ...details, timeoutMs: options.timeoutMs, timedOut, phase });
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
  }

  async function send(req: HttpRequest): Promise<HttpResponse> {
    if (closing) throw new AppError(ErrorCode.Internal, "The HTTP client is closed");
    let target: URL;
    try {
      target = new URL(req.url);
    } catch (err) {
      throw new AppError(ErrorCode.ConfigInvalid, "Invalid URL", {
        cause: err,
        details: { url: redactUrl(req.url) },
      });
    }
    const safeUrl = redactUrl(req.url);
    const accept = req.accept;
    const accepted = (status: number) =>
      accept === undefined ? status >= 200 && status < 300 : accept.includes(status);
    for (let n = 0; ; n++) {
      if (req.signal?.aborted) throw req.signal.reason;
      callCount++;
      options.onAttempt?.();
      let failure: AppError;
      let retry: boolean;
      try {
        const res = await attempt(req, target, safeUrl);
        if (accepted(res.status)) return res;
        const message = connectMessageOf(res.text);
        failure = new AppError(
          ErrorCode.ConnectHttpStatus,
          `${safeUrl} answered HTTP ${res.status}${message ? `: ${message}` : ""}`,
          {
            retryable: RETRYABLE_STATUSES.has(res.status),
            details: { url: safeUrl, method: req.method ?? "GET", status: res.status, attempts: n + 1 },
          },
        );
        retry = RETRY_STATUSES.has(res.status);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        failure = err;
        retry =
          err.retryable &&
          (err.code === ErrorCode.ConnectUnreachable || err.code === ErrorCode.ConnectTimeout);
      }
      if (!retry || n >= options.retries) throw failure;
      const waitMs = backoffDelay(n, baseMs, maxMs, random);
      options.logger?.debug(
        { url: safeUrl, code: failure.code, attempt: n + 1, waitMs, status: failure.details.status },
        "connect request retry",
      );
      const pause = new AbortController();
      const unsubscribe = req.signal
        ? onAbortOf(req.signal, () => pause.abort(req.signal?.reason))
        : () => undefined;
      try {
        await sleep(waitMs, req.signal ? pause.signal : undefined);
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason;
        throw err;
      } finally {
        unsubscribe();
      }
    }
  }

  async function getJson(req: HttpRequest): Promise<HttpJsonResponse> {
    const res = await send(req);
    try {
      return { status: res.status, json: JSON.parse(res.text) as unknown, url: res.url };
    } catch (err) {
      throw new AppError(ErrorCode.ConnectBadResponse, `The answer from ${res.url} is not valid JSON`, {
        cause: err,
        details: { url: res.url, status: res.status, bytes: res.text.length },
      });
    }
  }

  return {
    send,
    getJson,
    calls: () => callCount,
    close() {
      closing ??= agent.close();
      return closing;
    },
  };
}
