import { formatDuration } from "../format-duration.js";
import { reassignsImmediatelyWithZeroDelay } from "../protocol.js";
import type { DelayAnalysis, Finding, ResolvedPlanPolicy } from "./plan-types.js";
import { DEFAULT_SCHEDULED_REBALANCE_MAX_DELAY_MS } from "./resolve-plan-policy.js";

/** Headroom over the expected restart when recommending a delay. */
const DELAY_MARGIN_MS = 30_000;

export interface DelayAdvice {
  readonly analysis: DelayAnalysis;
  readonly findings: readonly Finding[];
  /** True when a delay of 0 reassigns lost work at once on every version that may run the assignor. */
  readonly zeroDelayReassigns: boolean;
}

/**
 * Compares the scheduled rebalance delay with the expected restart time (docs/connect-behaviour.md#held-tasks,
 * #delay-zero). `assignorVersions`: the versions that may run the assignor during the rollout (current versions and the
 * target).
 */
export function adviseDelay(policy: ResolvedPlanPolicy, assignorVersions: readonly string[]): DelayAdvice {
  const declared = policy.scheduledRebalanceMaxDelayMs;
  const delayMs = declared ?? DEFAULT_SCHEDULED_REBALANCE_MAX_DELAY_MS;
  const restartMs = policy.expectedRestartMs;
  const findings: Finding[] = [];
  if (declared === null) {
    findings.push({
      severity: "info",
      code: "delay-assumed-default",
      message: `scheduled.rebalance.max.delay.ms is not declared and Connect does not expose it; assuming the default ${delayMs} ms (${formatDuration(delayMs)}). Declare it to make the plan exact.`,
    });
  }
  const recommended = recommendedDelayFor(restartMs);
  const withoutFix = assignorVersions.filter((v) => !reassignsImmediatelyWithZeroDelay(v));
  const zeroDelayReassigns = withoutFix.length === 0;
  let recommendedDelayMs: number | null = null;
  if (delayMs === 0) {
    if (!zeroDelayReassigns) {
      findings.push({
        severity: "warn",
        code: "delay-zero-without-fix",
        message: `scheduled.rebalance.max.delay.ms=0 on ${[...new Set(withoutFix)].join(", ")} (without KAFKA-15693: fixed in 3.5.2, 3.6.1, 3.7.0): a bounced worker's tasks stay UNASSIGNED until some unrelated rebalance. Set a delay of about ${formatDuration(recommended)} instead.`,
      });
      recommendedDelayMs = recommended;
    } else {
      findings.push({
        severity: "info",
        code: "delay-zero",
        message:
          "scheduled.rebalance.max.delay.ms=0: every bounced worker's tasks move to survivors at once and part move back.",
      });
    }
  } else if (restartMs >= delayMs) {
    recommendedDelayMs = recommended;
    findings.push({
      severity: "warn",
      code: "delay-below-restart",
      message: `The expected restart (${formatDuration(restartMs)}) outlasts the scheduled delay (${formatDuration(delayMs)}): each follower's tasks go to the survivors at the deadline and move back when it returns. A delay of about ${formatDuration(recommended)} keeps them in place.`,
    });
  } else if (delayMs > 3 * restartMs + DELAY_MARGIN_MS) {
    recommendedDelayMs = recommended;
    findings.push({
      severity: "info",
      code: "delay-far-above-restart",
      message: `Each follower's tasks stay down for about the delay (${formatDuration(delayMs)}) although a restart takes ${formatDuration(restartMs)}. Setting scheduled.rebalance.max.delay.ms to about ${formatDuration(recommended)} on the leader would cut that to ${formatDuration(recommended)}.`,
    });
  }
  return {
    analysis: {
      delayMs,
      source: declared === null ? "default" : "declared",
      expectedRestartMs: restartMs,
      recommendedDelayMs,
      restartFitsInDelay: delayMs > 0 && restartMs < delayMs,
    },
    findings,
    zeroDelayReassigns,
  };
}

/**
 * The delay the plan recommends for a restart time: the restart plus a margin for a slower one, up to the next 10 s.
 * The margin is 30 s, or half the restart when that is more; a restart under 15 s gets twice itself instead (a
 * restart that short spreads by seconds, and every second of delay is a second each follower's tasks wait).
 */
export function recommendedDelayFor(restartMs: number): number {
  const margin = Math.max(Math.min(DELAY_MARGIN_MS, 2 * restartMs), restartMs / 2);
  return roundUp(restartMs + margin, 10_000);
}

function roundUp(ms: number, unit: number): number {
  return Math.ceil(ms / unit) * unit;
}
