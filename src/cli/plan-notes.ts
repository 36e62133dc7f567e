import { formatShortDuration as duration } from "../core/format-duration.js";
import type { Finding, Plan, PlanPolicy } from "../core/plan/plan-types.js";
import { resolvePlanPolicy } from "../core/plan/resolve-plan-policy.js";
import { windowTiming } from "../core/plan/window-timing.js";
import { plural } from "../core/plural.js";

/**
 * What `connect-roll plan` adds to the engine's findings so the plan does not leave people guessing: why pace
 * `window` formed no window (the margin against the delay).
 */
export function planNotes(plan: Plan, policy: PlanPolicy, delayMs: number): Finding[] {
  const out: Finding[] = [];
  if (plan.pace === "window" && plan.windows.length === 0 && plan.steps.length > 1) {
    const resolved = resolvePlanPolicy(policy);
    const t = windowTiming(resolved, delayMs);
    out.push({
      severity: "info",
      code: "window-none",
      message:
        `Pace window formed no window: a window fits ${plural(t.followersPerWindow, "follower")} ` +
        `(the delay ${duration(t.delayMs)} must hold a restart of ${duration(t.restartMs)} plus the margin ` +
        `${duration(t.marginMs)} = ${Math.round(resolved.restartJitter * 100)} % restart.jitter + pace.windowMarginFloorMs ` +
        `${duration(resolved.windowMarginFloorMs)}, and each further follower ${duration(t.stepMs)}), so every ` +
        "step runs as in pace safe. A longer scheduled.rebalance.max.delay.ms or a smaller pace.windowMarginFloorMs makes room.",
    });
  }
  return out;
}
