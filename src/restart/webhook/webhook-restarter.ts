import { request } from "undici";
import { AppError, ErrorCode } from "../../core/errors.js";
import { describeEndpoint, readBoundedText, requestSignal, transportFailure } from "../http-support.js";
import { throwIfAborted } from "../restart-abort.js";
import { validateRestartRequest } from "../validate-restart-request.js";
import type { RestartReceipt, RestartRequest, WorkerRestarter } from "../worker-restarter.js";
import { signWebhookBody, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from "./webhook-signature.js";

export interface WebhookRestarterOptions {
  /** Where the signed POST goes. Its path and query are never shown in messages (they may hold a token). */
  readonly url: string;
  /** Shared HMAC secret (see webhook-signature.ts). */
  readonly secret: string;
  /** Whole request (connect, headers, body), in milliseconds. */
  readonly timeoutMs: number;
  /** Extra headers (e.g. an Authorization header for a gateway); cannot override the signed ones. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The clock, in epoch milliseconds; default Date.now. */
  readonly now?: () => number;
}

/** The JSON body of a webhook restart request. */
interface WebhookRestartPayload {
  readonly type: "connect-roll.restart-worker";
  readonly stepId: string;
  readonly worker: {
    readonly name: string;
    readonly url: string;
    readonly host: string;
    readonly workerId: string;
    readonly pod: string | null;
  };
  readonly kind: "upgrade" | "restart";
  readonly version: string;
  readonly image: string | null;
  /** ISO-8601. */
  readonly sentAt: string;
}

const RESERVED_HEADERS = new Set([
  "content-type",
  "content-length",
  "host",
  "idempotency-key",
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
]);

/**
 * Asks an external system to restart a worker with an HMAC-signed POST. 2xx = accepted; 4xx = failed, not
 * retryable; 5xx, timeout or connection error = failed, retryable. `Idempotency-Key` is the step id, stable
 * across retries, so the receiver can drop duplicates.
 */
export function createWebhookRestarter(options: WebhookRestarterOptions): WorkerRestarter {
  const target = new URL(options.url);
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new AppError(ErrorCode.ConfigInvalid, "Webhook executor: url must be http(s).");
  }
  if (options.secret.length < 16) {
    throw new AppError(ErrorCode.ConfigInvalid, "Webhook executor: secret must be at least 16 characters.");
  }
  for (const key of Object.keys(options.headers ?? {})) {
    if (RESERVED_HEADERS.has(key.toLowerCase())) {
      throw new AppError(ErrorCode.ConfigInvalid, `Webhook executor: header ${key} is set by connect-roll.`);
    }
  }
  const now = options.now ?? Date.now;
  const endpoint = describeEndpoint(options.url);

  async function restart(req: RestartRequest): Promise<RestartReceipt> {
    validateRestartRequest(req);
    const name = req.worker.name;
    throwIfAborted(name, req.signal);
    const sentAtMs = now();
    const payload: WebhookRestartPayload = {
      type: "connect-roll.restart-worker",
      stepId: req.stepId,
      worker: {
        name: req.worker.name,
        url: req.worker.url,
        host: req.worker.host,
        workerId: req.worker.workerId,
        pod: req.worker.pod,
      },
      kind: req.kind,
      version: req.version,
      image: req.image,
      sentAt: new Date(sentAtMs).toISOString(),
    };
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(sentAtMs / 1000);
    let status: number;
    let text: string;
    try {
      const res = await request(target, {
        method: "POST",
        headers: {
          ...options.headers,
          "content-type": "application/json",
          "idempotency-key": req.stepId,
          [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
          [WEBHOOK_SIGNATURE_HEADER]: signWebhookBody(options.secret, timestamp, body),
        },
        body,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: requestSignal(options.timeoutMs, req.signal),
      });
      status = res.statusCode;
      text = await readBoundedText(res.body, 2048);
    } catch (err) {
      throw transportFailure(err, `webhook to ${endpoint}`, name, req.signal);
    }
    const excerpt = text.trim().slice(0, 300);
    if (status >= 200 && status <= 299) {
      return {
        detail: `Webhook ${endpoint} accepted the ${req.kind} of ${name} (HTTP ${status}${excerpt ? `: ${excerpt}` : ""}).`,
      };
    }
    throw new AppError(
      ErrorCode.RestartFailed,
      `Webhook ${endpoint} answered HTTP ${status} to the ${req.kind} of ${name}${excerpt ? `: ${excerpt}` : "."}`,
      { retryable: status >= 500, details: { worker: name, status, body: excerpt } },
    );
  }

  return { kind: "webhook", restart, close: async () => {} };
}
