import type { GatePolicy, ResolvedGatePolicy } from "./settle-types.js";

const GATE_POLICY_DEFAULTS: ResolvedGatePolicy = {
  consecutivePolls: 3,
  quietPeriodMs: 10_000,
  expectedSettleMs: 120_000,
  failAfterMs: 1_800_000,
  allowPaused: false,
  stallAfterMs: 60_000,
  flowWindowMs: 10_000,
};

/** Fills a `GatePolicy` with the defaults. */
export function resolveGatePolicy(policy: GatePolicy): ResolvedGatePolicy {
  return {
    consecutivePolls: Math.max(1, policy.consecutivePolls ?? GATE_POLICY_DEFAULTS.consecutivePolls),
    quietPeriodMs: policy.quietPeriodMs ?? GATE_POLICY_DEFAULTS.quietPeriodMs,
    expectedSettleMs: policy.expectedSettleMs ?? GATE_POLICY_DEFAULTS.expectedSettleMs,
    failAfterMs: policy.failAfterMs ?? GATE_POLICY_DEFAULTS.failAfterMs,
    allowPaused: policy.allowPaused ?? GATE_POLICY_DEFAULTS.allowPaused,
    stallAfterMs: policy.stallAfterMs ?? GATE_POLICY_DEFAULTS.stallAfterMs,
    flowWindowMs: policy.flowWindowMs ?? GATE_POLICY_DEFAULTS.flowWindowMs,
  };
}
