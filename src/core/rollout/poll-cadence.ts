import type { GateReason } from "../settle/settle-types.js";
import type { RolloutEffect } from "./rollout-io.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import { windowKeyOf } from "./windows.js";

/**
 * Poll cadence: how soon the next look at the cluster or at a restarted worker comes. Back polls (faster inside an
 * eager window, at the probe interval inside a pace window), the gate's polls (less often while only the scheduled
 * delay holds tasks back) and the gate ending a pace window (one look just after its deadline, then polls spanning
 * the quiet period).
 */

/** Longest wait between polls while only the scheduled delay holds tasks back: nothing else is expected to change. */
export const HELD_POLL_CAP_MS = 30_000;

/**
 * How often to look for a restarted worker. Inside an eager window every rebalance stops every task, so the next
 * worker should follow as soon as the previous one is back, before the tasks it got start and are stopped again:
 * poll ten times as often there (but not more often than every 0.5 s). Inside a pace window every second a worker
 * is seen late is taken from the window's room before the deadline: the probe interval (default 1 s). Elsewhere the
 * normal interval.
 */
export function backPollMs(s: RolloutState, step: StepRecord, now?: number): number {
  const key = windowKeyOf(s, step);
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
 * restart, whose proof is the process start time), not a read of the whole cluster. Where data flow is visible and
 * the step is not inside a pace window, a read of the whole cluster instead: tasks that move at once (the leader's,
 * an eager group's) start again elsewhere meanwhile, and only reads of every worker see when their data flows again.
 */
export function watchBack(s: RolloutState, step: StepRecord, now?: number): RolloutEffect {
  if (s.flow.visible && windowKeyOf(s, step)?.kind !== "pace")
    return { kind: "read-cluster", afterMs: backPollMs(s, step, now) };
  return {
    kind: "probe-worker",
    worker: step.worker,
    afterMs: backPollMs(s, step, now),
    metrics: s.target.kind === "restart",
  };
}

/**
 * While the only thing the gate waits for is the scheduled delay, poll less often (up to 30 s, and never past the
 * deadline): a real cluster is spared dozens of identical polls per step. Any other reason keeps the normal interval.
 */
export function nextPollMs(pollIntervalMs: number, reasons: readonly GateReason[]): number {
  const held = reasons.filter((r) => r.code === "held-by-scheduled-delay");
  if (held.length === 0 || held.length !== reasons.length) return pollIntervalMs;
  const remaining = Math.min(
    ...held.map((r) => (r.code === "held-by-scheduled-delay" ? (r.remainingMs ?? 0) : 0)),
  );
  return Math.max(pollIntervalMs, Math.min(HELD_POLL_CAP_MS, remaining - pollIntervalMs));
}

/** The next read while the gate of `step` waits: a pace window's gate polls by its deadline, any other by its reasons. */
export function settlePollMs(
  s: RolloutState,
  step: StepRecord,
  reasons: readonly GateReason[],
  now: number,
): number {
  return windowKeyOf(s, step)?.kind === "pace"
    ? windowGatePollMs(s, step, reasons, now)
    : nextPollMs(s.settings.pollIntervalMs, reasons);
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
const DEADLINE_ALLOWANCE_MS = 1_000;

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
