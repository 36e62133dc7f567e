import type { GateReason, GateReasonCode } from "../../core/settle/settle-types.js";
import { escapeMrkdwn, fitLines, MAX_LINE, truncateText } from "./limits.js";

/**
 * How much a gate reason matters to the people watching, lowest first. Failures come first, then the scheduled
 * delay (the usual, expected wait, with its countdown), then the restarted worker, then the group, then the rest.
 */
const RANK: Partial<Record<GateReasonCode, number>> = {
  "gate-timeout": 0,
  "task-failed": 1,
  "connector-failed": 1,
  "task-errors": 1,
  "data-stalled": 2,
  "connector-missing": 2,
  "worker-version-mismatch": 2,
  "held-by-scheduled-delay": 3,
  "gate-slow": 4,
  "worker-down": 5,
  "worker-unreachable": 5,
  "worker-starting": 6,
  "worker-idle": 6,
  "eos-leader-unreachable": 7,
  "eos-no-commit": 7,
  "leader-not-live": 7,
  "stale-running": 8,
  "tasks-not-running": 8,
  "task-missing": 8,
  "data-not-flowing": 8,
  rebalancing: 9,
  "rebalance-recent": 9,
};
const DEFAULT_RANK = 10;

/** The reasons, most important first (stable: equal ranks keep the gate's order). */
export function orderReasons(reasons: readonly GateReason[]): GateReason[] {
  return reasons
    .map((reason, index) => ({ reason, index, rank: RANK[reason.code] ?? DEFAULT_RANK }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((r) => r.reason);
}

/** One line per reason (its message verbatim, escaped, bounded), at most `max` lines then "+N more". */
export function gateLines(reasons: readonly GateReason[], max = 5): string[] {
  const lines = orderReasons(reasons).map((r) => `• ${truncateText(escapeMrkdwn(r.message), MAX_LINE)}`);
  return fitLines(lines, Number.POSITIVE_INFINITY, max);
}
