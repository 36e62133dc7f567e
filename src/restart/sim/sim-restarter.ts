import { request } from "undici";
import { AppError, ErrorCode } from "../../core/errors.js";
import { formatShortDuration } from "../../core/format-duration.js";
import { describeEndpoint, readBoundedText, requestSignal, transportFailure } from "../http-support.js";
import { throwIfAborted } from "../restart-abort.js";
import { validateRestartRequest } from "../validate-restart-request.js";
import type { RestartReceipt, RestartRequest, WorkerRestarter } from "../worker-restarter.js";

export interface SimRestarterOptions {
  /** The simulator's control URL (printed by `connect-roll sim`). */
  readonly controlUrl: string;
  /** How long the simulated worker stays down, in (virtual) milliseconds. */
  readonly downMs: number;
  /** Timeout of the control request, in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * Restarts a simulated worker through the simulator's control API:
 * `POST {controlUrl}/sim/workers/{name}/restart?version=V&downMs=R` (DESIGN.md §4).
 */
export function createSimRestarter(options: SimRestarterOptions): WorkerRestarter {
  const base = new URL(options.controlUrl);
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new AppError(ErrorCode.ConfigInvalid, "Simulator control URL must be http(s).");
  }
  if (!Number.isInteger(options.downMs) || options.downMs < 0) {
    throw new AppError(ErrorCode.ConfigInvalid, "Simulator downMs must be a non-negative integer.");
  }
  const basePath = base.pathname.replace(/\/+$/, "");

  async function restart(req: RestartRequest): Promise<RestartReceipt> {
    validateRestartRequest(req);
    const name = req.worker.name;
    throwIfAborted(name, req.signal);
    const url = new URL(base.href);
    url.pathname = `${basePath}/sim/workers/${encodeURIComponent(name)}/restart`;
    url.search = new URLSearchParams({ version: req.version, downMs: String(options.downMs) }).toString();
    let status: number;
    let body: string;
    try {
      const res = await request(url, {
        method: "POST",
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: requestSignal(options.timeoutMs, req.signal),
      });
      status = res.statusCode;
      body = await readBoundedText(res.body);
    } catch (err) {
      throw transportFailure(err, `simulator request to ${describeEndpoint(base.href)}`, name, req.signal);
    }
    if (status < 200 || status > 299) {
      throw new AppError(
        ErrorCode.RestartFailed,
        `Simulator refused the restart of ${name}: HTTP ${status}: ${body.trim().slice(0, 500)}`,
        { retryable: status >= 500, details: { worker: name, status, body } },
      );
    }
    return {
      // The worker's down time is the simulator's start time (plus downMs); the worker-back event measures it.
      detail: `Simulator restarted ${name} (${req.kind} to ${req.version}${options.downMs > 0 ? `, held down ${formatShortDuration(options.downMs)} before it starts` : ""}).`,
    };
  }

  return { kind: "sim", restart, close: async () => {} };
}
