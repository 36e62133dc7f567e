import { groupPaceWindows } from "./group-pace-windows.js";
import type { PaceWindow, Plan, PlanPolicy } from "./plan-types.js";
import { resolvePlanPolicy } from "./resolve-plan-policy.js";
import { windowTiming } from "./window-timing.js";

/**
 * A window cut short (its next follower would not be back before the deadline): the workers still to go are grouped
 * again from the next one on, with the same bound as the plan, instead of each waiting a full delay alone. `remaining`
 * are the worker names still to restart, in the engine's order. The windows already run keep their indexes.
 */
export function replanWindows(plan: Plan, policy: PlanPolicy, remaining: readonly string[]): Plan {
  const p = resolvePlanPolicy(policy);
  const byWorker = new Map(plan.steps.map((s) => [s.worker, s]));
  const rest = remaining.flatMap((w) => {
    const s = byWorker.get(w);
    return s ? [s] : [];
  });
  const totalTasks = plan.steps.reduce((acc, s) => acc + s.tasks, 0);
  const grouped = groupPaceWindows(
    rest.map((s, i) => ({
      step: s.step,
      windowable:
        s.disruption === "held" &&
        !s.isLeader &&
        plan.delay.delayMs > 0 &&
        p.expectedRestartMs < plan.delay.delayMs,
      tasks: s.tasks,
      isLeader: s.isLeader,
      mayClose:
        p.leaderClosesLastWindow &&
        i === rest.length - 1 &&
        s.disruption === "leader" &&
        plan.delay.delayMs > 0,
    })),
    { totalTasks, timing: windowTiming(p, plan.delay.delayMs), maxHeldShare: p.windowMaxHeldShare },
  );
  const windows: PaceWindow[] = [...plan.windows, ...grouped];
  const indexOf = new Map<number, number>();
  grouped.forEach((w, i) => {
    for (const step of w.steps) indexOf.set(step, plan.windows.length + i);
  });
  const again = new Set(rest.map((s) => s.step));
  return {
    ...plan,
    windows,
    steps: plan.steps.map((s) => (again.has(s.step) ? { ...s, window: indexOf.get(s.step) ?? null } : s)),
  };
}
