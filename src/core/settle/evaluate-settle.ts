import { formatDuration } from "../format-duration.js";
import { plural } from "../plural.js";
import { sameUrl } from "../snapshot.js";
import { assessFlow } from "./assess-flow.js";
import { assessLiveness } from "./assess-liveness.js";
import { assessTasks } from "./assess-tasks.js";
import { checkConnectorSet } from "./check-connector-set.js";
import { checkExactlyOnceCommits } from "./check-exactly-once.js";
import { checkGroup } from "./check-group.js";
import { checkRestartedWorker } from "./check-restarted-worker.js";
import { countStablePolls } from "./count-stable-polls.js";
import { detectHeldTasks } from "./detect-held-tasks.js";
import { resolveGatePolicy } from "./resolve-gate-policy.js";
import type { Baseline, GateReason, SettleInput, SettleVerdict, TaskStateRef } from "./settle-types.js";

/**
 * Is the cluster truly settled after a step? Relative to the baseline: every task that was RUNNING is RUNNING on a
 * live worker, connectors and tasks unchanged, the restarted worker back on the target version and holding work,
 * the group agreed and quiet with a complete assignment, the assignment identical for N polls in a row, and, where the
 * metrics show data flow, every task that flowed before the step moving data again (no stall, no new record failures).
 */
export function evaluateSettle(input: SettleInput): SettleVerdict {
  const { baseline, polls, now } = input;
  const policy = resolveGatePolicy(input.policy);
  const poll = polls.at(-1);
  if (!poll)
    return { kind: "waiting", reasons: [{ code: "no-polls", message: "no poll of the cluster yet" }] };
  if (poll.connectors === null) {
    const reason: GateReason = {
      code: "connectors-unreadable",
      message: `connector statuses unreadable${poll.connectorsError ? ` (${poll.connectorsError})` : ""}`,
    };
    return withTime(baseline, [reason], policy, now);
  }
  const liveness = assessLiveness(poll, baseline);
  const tasks = assessTasks(baseline.snapshot, poll, liveness, policy.allowPaused);
  const flow =
    baseline.flow !== null && input.flow !== undefined
      ? assessFlow(
          baseline.flow,
          input.flow,
          new Set(tasks.notRunning.map((t) => t.task)),
          now,
          policy.stallAfterMs,
        )
      : null;
  const failures = [...tasks.failures, ...(flow?.failures ?? [])];
  if (failures.length > 0) return { kind: "failed", reasons: failures };

  const group = checkGroup(poll, now, policy.quietPeriodMs);
  const held = detectHeldTasks(baseline, tasks.notRunning, group, now);
  const heldSet = new Set(held.held);
  const reasons: GateReason[] = [];
  if (held.reason) reasons.push(held.reason);
  const restarted = checkRestartedWorker(poll, baseline);
  reasons.push(...restarted.filter((r) => !(held.reason && r.code === "worker-idle")));
  reasons.push(...checkConnectorSet(baseline.snapshot.connectors ?? [], poll.connectors));
  reasons.push(...group.reasons);
  for (const s of liveness.stale) {
    if (held.reason && s.worker.workerId === baseline.worker.workerId) continue;
    const staleTasks = tasks.notRunning.filter((t) => t.workerId === s.worker.workerId).map((t) => t.task);
    reasons.push({
      code: "stale-running",
      worker: s.worker.name,
      claimed: s.claimed,
      assigned: s.assigned,
      tasks: staleTasks,
      message: `${plural(s.claimed, "task claims", "tasks claim")} RUNNING on ${s.worker.name} but it reports ${s.assigned} assigned: stale statuses`,
    });
  }
  if (tasks.onUnknownWorker.length > 0) {
    reasons.push({
      code: "task-on-unknown-worker",
      tasks: tasks.onUnknownWorker,
      message: `${plural(tasks.onUnknownWorker.length, "task")} RUNNING on a worker id that is no configured worker`,
    });
  }
  const stillDown = tasks.notRunning.filter(
    (t) => !heldSet.has(t.task) && !tasks.onUnknownWorker.includes(t),
  );
  if (stillDown.length > 0) {
    reasons.push(tasksNotRunningReason(stillDown));
  }
  reasons.push(...checkAssignmentCount(group.assigned, group.configured, held.held.length));
  reasons.push(...checkExactlyOnceLeader(baseline, poll, group.leaderUrl));
  reasons.push(...checkExactlyOnceCommits(baseline, poll, input.flow));
  reasons.push(...(flow?.reasons ?? []));
  const stable = input.stablePolls ?? countStablePolls(polls, baseline.stopIssuedAt);
  if (stable < policy.consecutivePolls) {
    reasons.push({
      code: "assignment-unstable",
      stablePolls: stable,
      needed: policy.consecutivePolls,
      message: `assignment identical for ${stable} of ${plural(policy.consecutivePolls, "poll")}`,
    });
  }
  return withTime(baseline, reasons, policy, now);
}

function checkAssignmentCount(assigned: number | null, configured: number, held: number): GateReason[] {
  if (assigned === null || assigned === configured) return [];
  if (assigned > configured) {
    return [
      {
        code: "assignment-excess",
        assigned,
        configured,
        message: `workers hold ${plural(assigned, "task")}, ${configured} configured`,
      },
    ];
  }
  if (assigned + held >= configured) return [];
  return [
    {
      code: "assignment-incomplete",
      assigned,
      configured,
      message: `workers hold ${assigned} of ${configured} configured tasks`,
    },
  ];
}

function checkExactlyOnceLeader(
  baseline: Baseline,
  poll: SettleInput["polls"][number],
  leaderUrl: string | null,
): GateReason[] {
  const eosWorkers = poll.workers.some((w) => w.exactlyOnceSourceSupport === "enabled");
  const connectors = (poll.connectors ?? [])
    .filter((c) => c.type === "source" && (eosWorkers || c.config["exactly.once.support"] === "required"))
    .map((c) => c.name);
  if (connectors.length === 0 || leaderUrl === null) return [];
  const leader = poll.workers.find((w) => sameUrl(w.url, leaderUrl));
  if (leader?.reachable) return [];
  return [
    {
      code: "eos-leader-unreachable",
      leaderUrl,
      connectors,
      message: `exactly-once source connectors need the leader (${leaderUrl}) reachable for zombie fencing; it is not (step ${baseline.step})`,
    },
  ];
}

function withTime(
  baseline: Baseline,
  reasons: GateReason[],
  policy: ReturnType<typeof resolveGatePolicy>,
  now: number,
): SettleVerdict {
  if (reasons.length === 0) return { kind: "settled" };
  const reference = baseline.delayDeadline ?? baseline.stopIssuedAt;
  const elapsedMs = now - reference;
  if (elapsedMs > policy.failAfterMs) {
    const timeout: GateReason = {
      code: "gate-timeout",
      elapsedMs,
      message: `not settled ${formatDuration(elapsedMs)} after ${baseline.delayDeadline === null ? "the stop" : "the delay deadline"}`,
    };
    return { kind: "failed", reasons: [timeout, ...reasons] };
  }
  if (elapsedMs > policy.expectedSettleMs) {
    const overdueMs = elapsedMs - policy.expectedSettleMs;
    reasons.push({
      code: "gate-slow",
      overdueMs,
      message: `settling is ${formatDuration(overdueMs)} slower than expected`,
    });
  }
  return { kind: "waiting", reasons };
}

/** The gate's reason for tasks not RUNNING on a live worker yet, naming the first five with state and worker. */
export function tasksNotRunningReason(tasks: readonly TaskStateRef[]): GateReason {
  return {
    code: "tasks-not-running",
    tasks,
    message: `${plural(tasks.length, "task")} not RUNNING on a live worker yet (${tasks
      .slice(0, 5)
      .map((t) => `${t.task} ${t.state}@${t.workerId ?? "-"}`)
      .join(", ")})`,
  };
}
