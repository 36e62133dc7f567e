import { resolveLeader } from "../plan/resolve-leader.js";
import { fitsBeforeDeadline, type WindowTiming, windowTiming } from "../plan/window-timing.js";
import type { GateReason } from "../settle/settle-types.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { versionMatches } from "../version.js";
import type { RolloutEffect, RolloutState, StepRecord } from "./rollout-types.js";
import { startedSince, stepAt } from "./step-helpers.js";
import { eagerWindowKey, paceWindowKey, sameWindow, type WindowKey } from "./window-key.js";

/**
 * Pace at the frontier: which window a step belongs to, whether the next worker may follow at once, how a restarted
 * worker is watched and how the gate ending a pace window polls. Pure, like `decide`, which uses them.
 */

/** Longest wait between polls while only the scheduled delay holds tasks back: nothing else is expected to change. */
export const HELD_POLL_CAP_MS = 30_000;

/**
 * The window (see `RolloutState.openWindow`) the worker's step belongs to: its eager window first (crossed promptly,
 * docs/connect-behaviour.md#leaving-eager), else its pace window; null when the step runs on its own.
 */
export function windowKeyOf(s: RolloutState, worker: string): WindowKey | null {
  const planStep = s.plan?.steps.find((p) => p.worker === worker);
  if (!planStep) return null;
  const eager = s.plan?.eagerWindows.find((w) => planStep.step >= w.fromStep && planStep.step <= w.toStep);
  if (eager) return eagerWindowKey(eager.fromStep);
  return planStep.window === null ? null : paceWindowKey(planStep.window);
}

/** The window timing of this rollout: the same numbers as the plan's (`windowTiming`). */
function timingOf(s: RolloutState): WindowTiming {
  return windowTiming(s.settings.planPolicy, s.settings.delayMs);
}

/**
 * Whether the next worker can be restarted now instead of waiting for the gate: `continue` when the worker is back,
 * the next step belongs to the same window and (pace windows) can be back `marginMs` before the deadline, or is the
 * leader closing the window; `cut-short` when only the deadline stops it (the rest is grouped again); `gate`
 * otherwise.
 */
export function windowContinuation(
  s: RolloutState,
  step: StepRecord,
  snapshot: ClusterSnapshot,
  now: number,
): "continue" | "cut-short" | "gate" {
  const open = s.openWindow;
  const key = windowKeyOf(s, step.worker);
  if (!open || !sameWindow(open.key, key)) return "gate";
  const next = stepAt(s, step.step + 1);
  if (next?.status !== "pending" || !sameWindow(windowKeyOf(s, next.worker), key)) return "gate";
  // The next worker already runs the target: it would be skipped, so the window's gate must run now.
  const nextWorker = snapshot.workers.find((w) => w.name === next.worker);
  if (
    s.target.kind === "upgrade" &&
    nextWorker?.version &&
    versionMatches(nextWorker.version, s.target.version)
  )
    return "gate";
  if (s.target.kind === "restart" && startedSince(nextWorker, s.target.since ?? s.startedAt)) return "gate";
  // The leader closing the window: its stop hands the held tasks out at once, whatever the deadline.
  const leader = resolveLeader(snapshot);
  if (open.deadline === null || (leader.kind === "known" && leader.worker === next.worker)) return "continue";
  return fitsBeforeDeadline(timingOf(s), now, open.deadline) ? "continue" : "cut-short";
}

/**
 * How often to look for a restarted worker. Inside an eager window every rebalance stops every task, so the next
 * worker should follow as soon as the previous one is back, before the tasks it got start and are stopped again:
 * poll ten times as often there (but not more often than every 0.5 s). Inside a pace window every second a worker
 * is seen late is taken from the window's room before the deadline: the probe interval (default 1 s). Elsewhere the
 * normal interval.
 */
export function backPollMs(s: RolloutState, step: StepRecord, now?: number): number {
  const key = windowKeyOf(s, step.worker);
  if (key?.kind === "eager") return Math.max(500, Math.round(s.settings.pollIntervalMs / 10));
  if (key?.kind !== "pace") return s.settings.pollIntervalMs;
  const p = s.settings.planPolicy;
  const probe = Math.min(s.settings.pollIntervalMs, p.windowProbeIntervalMs);
  // While the worker is due back (the expected restart ± its jitter), four times as often: it is seen within a
  // quarter of the interval, for a few more calls.
  const elapsed = now === undefined || step.restartIssuedAt === null ? null : now - step.restartIssuedAt;
  const r = s.settings.expectedRestartMs;
  const due =
    elapsed !== null &&
    elapsed + probe >= r * (1 - p.restartJitter) &&
    elapsed <= r * (1 + p.restartJitter) + probe;
  return due ? Math.max(100, Math.round(probe / 4)) : probe;
}

/**
 * The next look at a restarted worker: a probe of that worker alone (one `GET /`, plus its metrics for a plain
 * restart, whose proof is the process start time), not a read of the whole cluster.
 */
export function watchBack(s: RolloutState, step: StepRecord, now?: number): RolloutEffect {
  return {
    kind: "probe-worker",
    worker: step.worker,
    afterMs: backPollMs(s, step, now),
    metrics: s.target.kind === "restart",
  };
}

/** Reasons a pace window's gate gives while the window's held tasks wait for its deadline. */
const WAITING_FOR_DEADLINE: ReadonlySet<GateReason["code"]> = new Set([
  "held-by-scheduled-delay",
  "tasks-not-running",
  "assignment-incomplete",
  "assignment-unstable",
  "rebalance-recent",
]);

/** After the deadline (or the closing leader's return), the first look at the cluster: time to rebalance. */
export const DEADLINE_ALLOWANCE_MS = 1_000;

/**
 * The gate at the end of a pace window. Before the deadline, while nothing but the window's held tasks is missing
 * (UNASSIGNED: every window worker's, not only the last one's), one poll just after the deadline (at most every
 * 30 s). Then, once the tasks are handed out, the confirming polls: N identical polls spanning the quiet period
 * (quietPeriodMs / (N − 1), between the probe interval and the poll interval), not N poll intervals.
 */
export function windowGatePollMs(
  s: RolloutState,
  step: StepRecord,
  reasons: readonly GateReason[],
  now: number,
): number {
  const poll = s.settings.pollIntervalMs;
  const probe = s.settings.planPolicy.windowProbeIntervalMs;
  // The leader closing the window: the new leader handed the held tasks out, the deadline is gone with it.
  const deadline = step.isLeader ? null : (s.openWindow?.deadline ?? null);
  const onlyHeld =
    reasons.some((r) => r.code === "held-by-scheduled-delay") &&
    reasons.every(
      (r) =>
        WAITING_FOR_DEADLINE.has(r.code) &&
        (r.code !== "tasks-not-running" || r.tasks.every((t) => t.state === "UNASSIGNED")),
    );
  if (deadline !== null && onlyHeld && deadline > now)
    return Math.max(probe, Math.min(HELD_POLL_CAP_MS, deadline - now + DEADLINE_ALLOWANCE_MS));
  if (deadline !== null && deadline > now) return poll;
  const gate = s.settings.gatePolicy;
  const n = Math.max(2, gate.consecutivePolls);
  const quiet = gate.quietPeriodMs;
  return Math.min(poll, Math.max(probe, Math.round(quiet / (n - 1))));
}
