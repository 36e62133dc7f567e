import type { PlanPolicy, ResolvedPlanPolicy } from "./plan-types.js";
import { SETTLE_ALLOWANCE_MS } from "./predict-step-cost.js";

/** Connect's default `scheduled.rebalance.max.delay.ms` (docs/connect-behaviour.md#settings-and-their-defaults). */
export const DEFAULT_SCHEDULED_REBALANCE_MAX_DELAY_MS = 300_000;
const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
/** The held-share cap is an optional safety knob: by default it never binds (the deadline bounds a window). */
const DEFAULT_WINDOW_MAX_HELD_SHARE = 1;
const DEFAULT_WINDOW_MARGIN_FLOOR_MS = 5_000;
const DEFAULT_RESTART_JITTER = 0.1;
const DEFAULT_WINDOW_PROBE_INTERVAL_MS = 1_000;

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
    windowMarginFloorMs: Math.max(0, policy.windowMarginFloorMs ?? DEFAULT_WINDOW_MARGIN_FLOOR_MS),
    restartJitter: Math.max(0, policy.restartJitter ?? DEFAULT_RESTART_JITTER),
    windowProbeIntervalMs: Math.max(100, policy.windowProbeIntervalMs ?? DEFAULT_WINDOW_PROBE_INTERVAL_MS),
    leaderClosesLastWindow: policy.leaderClosesLastWindow ?? true,
    sessionTimeoutMs: policy.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
    settleAllowanceMs: Math.max(0, policy.settleAllowanceMs ?? SETTLE_ALLOWANCE_MS),
  };
}
