import { AppError, ErrorCode, isAppError } from "../../core/errors.js";
import { formatShortDuration } from "../../core/format-duration.js";
import { abortedError, sleep } from "../restart-abort.js";
import type { CallContext, KubernetesApi } from "./kubernetes-api.js";
import type { Pod } from "./kubernetes-schemas.js";

export interface ReplacementTiming {
  readonly pollMs: number;
  readonly podReadyTimeoutMs: number;
}

/** The pod as it is now; a missing pod is a retryable failure (it may be between deletion and recreation). */
export async function requirePod(api: KubernetesApi, name: string, ctx: CallContext): Promise<Pod> {
  const pod = await api.getPod(name, ctx);
  if (pod === null) {
    throw new AppError(
      ErrorCode.RestartFailed,
      `Restart of ${ctx.worker}: pod ${name} does not exist (it may be being recreated); nothing was deleted.`,
      { retryable: true, details: { worker: ctx.worker, pod: name } },
    );
  }
  return pod;
}

/**
 * Polls until a pod named `name` exists with a uid other than `oldUid` (not readiness: the settle gate watches
 * the worker's REST API). Transient API errors are tolerated until the deadline.
 */
export async function waitForReplacement(
  api: KubernetesApi,
  name: string,
  oldUid: string,
  ctx: CallContext,
  timing: ReplacementTiming,
): Promise<Pod> {
  const deadline = Date.now() + timing.podReadyTimeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      await sleep(timing.pollMs, ctx.signal);
    } catch {
      throw abortedError(ctx.worker, ctx.signal ?? AbortSignal.abort());
    }
    try {
      const pod = await api.getPod(name, ctx);
      if (pod !== null && pod.metadata.uid !== oldUid) return pod;
    } catch (err) {
      if (!isAppError(err) || !err.retryable) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) {
      throw new AppError(
        ErrorCode.RestartFailed,
        `Restart of ${ctx.worker}: pod ${name} was not recreated within ${formatShortDuration(timing.podReadyTimeoutMs)} (it was deleted; check the StatefulSet's events).`,
        { cause: lastError, retryable: false, details: { worker: ctx.worker, pod: name, timedOut: true } },
      );
    }
  }
}

/** Deletes the pod (only if it is still the one with `pod.metadata.uid`) and waits for its replacement. */
export async function replacePod(
  api: KubernetesApi,
  pod: Pod,
  ctx: CallContext,
  timing: ReplacementTiming,
): Promise<Pod> {
  await api.deletePod(pod.metadata.name, pod.metadata.uid, ctx);
  return waitForReplacement(api, pod.metadata.name, pod.metadata.uid, ctx, timing);
}
