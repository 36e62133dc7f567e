import type { PlanPolicy, ResolvedPlanPolicy } from "./plan-types.js";

/** Connect's default `scheduled.rebalance.max.delay.ms` (CONNECT-FACTS §4). */
export const DEFAULT_SCHEDULED_REBALANCE_MAX_DELAY_MS = 300_000;
export const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
export const DEFAULT_WINDOW_MAX_HELD_SHARE = 0.34;
export const DEFAULT_WINDOW_MARGIN_MS = 30_000;

/** Fills the optional fields of a `PlanPolicy` with their defaults. */
export function resolvePlanPolicy(policy: PlanPolicy): ResolvedPlanPolicy {
  return {
    connectProtocol: policy.connectProtocol,
    connectProtocolByWorker: policy.connectProtocolByWorker ?? {},
    scheduledRebalanceMaxDelayMs: policy.scheduledRebalanceMaxDelayMs,
    expectedRestartMs: Math.max(0, policy.expectedRestartMs),
    maxTasksPerWorker: policy.maxTasksPerWorker ?? null,
    exactlyOnceSourceSupport: policy.exactlyOnceSourceSupport ?? null,
    pace: policy.pace ?? "safe",
    windowMaxHeldShare: policy.windowMaxHeldShare ?? DEFAULT_WINDOW_MAX_HELD_SHARE,
    windowMarginMs: policy.windowMarginMs ?? DEFAULT_WINDOW_MARGIN_MS,
    sessionTimeoutMs: policy.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
  };
}
