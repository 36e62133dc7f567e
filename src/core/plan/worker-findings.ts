import { plural } from "../plural.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { countConfiguredTasks } from "./count-worker-tasks.js";
import type { Finding, LeaderResolution, ResolvedPlanPolicy } from "./plan-types.js";

/** Share of `maxTasksPerWorker` on the survivors above which the headroom is tight (warn). */
const TIGHT_HEADROOM = 0.9;

/** Preflight findings about workers: reachability, versions, metrics, leader, capacity. */
export function findWorkerFindings(
  snapshot: ClusterSnapshot,
  policy: ResolvedPlanPolicy,
  leader: LeaderResolution,
): Finding[] {
  const findings: Finding[] = [];
  for (const w of snapshot.workers.filter((x) => !x.reachable)) {
    findings.push({
      severity: "block",
      code: "worker-unreachable",
      message: `${w.name} (${w.url}) is unreachable${w.error ? `: ${w.error}` : ""}.`,
    });
  }
  const versions = [...new Set(snapshot.workers.flatMap((w) => (w.version === null ? [] : [w.version])))];
  if (versions.length > 1) {
    findings.push({
      severity: "warn",
      code: "mixed-versions",
      message: `Workers already run different versions (${versions.sort().join(", ")}): a previous rollout may not have finished.`,
    });
  }
  const withMetrics = snapshot.workers.filter((w) => w.metrics !== null).length;
  if (withMetrics === 0) {
    findings.push({
      severity: "warn",
      code: "no-metrics",
      message:
        "No worker metrics: the leader is unknown, scheduled-delay windows and stale RUNNING statuses after a crash cannot be detected, so the settle gate is weaker.",
    });
  } else if (withMetrics < snapshot.workers.length) {
    findings.push({
      severity: "warn",
      code: "metrics-partial",
      message: `Only ${withMetrics} of ${plural(snapshot.workers.length, "worker")} expose metrics: the assignment count check is skipped.`,
    });
  }
  if (leader.kind === "unknown") {
    findings.push({
      severity: "warn",
      code: "leader-unknown",
      message: `Leader unknown (${leader.reason}): the order could not be made leader-last.`,
    });
  }
  findings.push(...findCapacityFindings(snapshot, policy));
  return findings;
}

function findCapacityFindings(snapshot: ClusterSnapshot, policy: ResolvedPlanPolicy): Finding[] {
  const n = snapshot.workers.length;
  if (n === 1) {
    return [
      {
        severity: "warn",
        code: "single-worker",
        message: "The cluster has one worker: every task is down for the whole restart.",
      },
    ];
  }
  const max = policy.maxTasksPerWorker;
  if (max === null || n < 2) return [];
  const total = countConfiguredTasks(snapshot);
  const capacity = max * (n - 1);
  const perSurvivor = Math.ceil(total / (n - 1));
  if (total > capacity) {
    return [
      {
        severity: "block",
        code: "capacity-headroom",
        message: `With one worker out, ${plural(n - 1, "survivor")} must hold ${plural(total, "task")} (${perSurvivor} each) but allow ${max} each: reassigned tasks would not fit.`,
      },
    ];
  }
  if (total >= capacity * TIGHT_HEADROOM) {
    return [
      {
        severity: "warn",
        code: "capacity-headroom",
        message: `With one worker out, survivors hold up to ${plural(perSurvivor, "task")} each, close to the limit of ${max}.`,
      },
    ];
  }
  return [];
}
