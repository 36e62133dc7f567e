import { dataFlowOf, planRollout } from "../plan/plan-rollout.js";
import type { Plan, PlanDataFlow } from "../plan/plan-types.js";
import { learnBaselineFlow } from "../settle/assess-flow.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { done, type PhaseResult, reenter } from "./phase-result.js";
import { recentlyStarted } from "./recent-starts.js";
import type { UnsettledStart } from "./rollout-reasons.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import { freezeOf, pendingStep } from "./step-helpers.js";
import { ask, emit, finish } from "./transitions.js";

/**
 * Planning: the first read of the cluster. It must be a settled baseline (connectors read, tasks started, no
 * rebalance), else the read is repeated until the settle allowance is over; then the plan, its steps and the config
 * freeze. Blocking findings are asked about before step 1; otherwise step 1's checks run on this same read.
 */
export function onPlanning(s: RolloutState, snapshot: ClusterSnapshot, now: number): PhaseResult {
  const waitMs = s.settings.gatePolicy.expectedSettleMs;
  const readAgain = done({
    state: s,
    effects: [{ kind: "read-cluster", afterMs: s.settings.pollIntervalMs }],
  });
  // Connect's REST refusing for a moment (a worker restarting, a proxy reloading) is read again, as an unsettled
  // start is; only a cluster whose connectors stay unreadable for the settle allowance is refused.
  if (snapshot.connectors === null) {
    if (now - s.startedAt < waitMs) return readAgain;
    return done(
      finish(s, now, "failed", {
        kind: "connectors-unreadable",
        cluster: s.cluster,
        error: snapshot.connectorsError ?? null,
      }),
    );
  }
  const unsettled = unsettledBaseline(snapshot);
  if (unsettled !== null && unsettled.kind !== "empty") {
    // A baseline taken while the cluster comes up (no connectors yet, tasks not started) would make every connector
    // look "created during the rollout" and every task look moved: wait for a settled one, then refuse with the reason.
    if (now - s.startedAt < waitMs) return readAgain;
    return done(finish(s, now, "failed", { kind: "unsettled-at-start", unsettled, waitedMs: waitMs }));
  }
  // No connectors at all: keep looking until the deadline (a cluster that just came up gets its connectors a moment
  // later); a cluster still empty then, whose metrics confirm it, has nothing to protect.
  if (unsettled?.kind === "empty" && now - s.startedAt < waitMs) return readAgain;
  // Which tasks move data and which are idle needs readings a window apart: read until the track has them.
  const learning = learnBaselineFlow(s.flow, now, s.settings.gatePolicy.flowWindowMs);
  if (learning.kind === "learning")
    return done({
      state: s,
      effects: [{ kind: "read-cluster", afterMs: Math.min(s.settings.pollIntervalMs, learning.remainingMs) }],
    });
  const dataFlow: PlanDataFlow =
    learning.kind === "learned"
      ? { kind: "visible", flowing: learning.flow.flowing.length, idle: learning.flow.idle }
      : dataFlowOf(snapshot);
  const recent = askAboutRecentStarts(s, snapshot, now);
  if (recent !== null) return done(recent);
  const plan: Plan = planRollout(snapshot, s.target, s.settings.planPolicy, dataFlow);
  const steps: StepRecord[] = plan.steps.map((p) =>
    pendingStep({
      step: p.step,
      worker: p.worker,
      workerId: p.workerId,
      url: snapshot.workers.find((w) => w.name === p.worker)?.url ?? "",
      isLeader: p.isLeader,
      fromVersion: p.fromVersion,
    }),
  );
  const next: RolloutState = {
    ...s,
    plan,
    steps,
    freeze: freezeOf(snapshot),
    phase: { kind: "before-step", step: 1 },
  };
  const planned = [
    emit({ kind: "rollout-planned", plan }),
    // Said once, in the thread: without per-task metrics the gate falls back to statuses.
    ...(dataFlow.kind === "unseen" ? [emit({ kind: "data-flow-unseen", workers: dataFlow.workers })] : []),
  ];
  if (steps.length === 0) return done(finish(next, now, "succeeded", { kind: "nothing-to-do" }, planned));
  const blocking = plan.findings.filter((f) => f.severity === "block");
  if (blocking.length > 0)
    return done(
      ask(
        next,
        now,
        {
          step: null,
          facts: { kind: "blocking-findings", cluster: s.cluster, findings: blocking },
          options: ["approve", "abort"],
        },
        { kind: "before-step", step: 1, approved: "blocking-findings" },
        planned,
      ),
    );
  return reenter({ kind: "before-step" }, next, planned);
}

/**
 * A plain restart without `since` on a cluster where some workers started long after the rest (an interrupted
 * rollout whose record Redis lost?) asks first: restart them too, or count them as restarted. Asked once.
 */
function askAboutRecentStarts(s: RolloutState, snapshot: ClusterSnapshot, now: number) {
  if (s.target.kind !== "restart" || s.target.since !== undefined) return null;
  if (s.approvals.some((a) => a.kind === "recently-started")) return null;
  const recent = recentlyStarted(snapshot, now);
  if (recent === null) return null;
  return ask(
    s,
    now,
    {
      step: null,
      facts: { kind: "recently-started", cluster: s.cluster, ...recent, now },
      options: ["continue", "approve", "abort"],
    },
    { kind: "planning" },
  );
}

const SETTLED_TASK_STATES: ReadonlySet<string> = new Set(["RUNNING", "PAUSED", "FAILED"]);

/**
 * Why this first read cannot be a baseline, or null when it can: no connectors while some worker's metrics show
 * assigned work or no metrics vouch for an empty cluster; `empty` when there are no connectors and every worker's
 * metrics agree (a baseline only once the wait is over); a connector or task not started yet (UNASSIGNED,
 * RESTARTING, UNKNOWN); or a worker in a rebalance. FAILED tasks are settled (the plan's blocking findings ask).
 */
export function unsettledBaseline(
  snapshot: ClusterSnapshot,
): UnsettledStart | { readonly kind: "empty" } | null {
  const connectors = snapshot.connectors ?? [];
  const live = snapshot.workers.filter((w) => w.reachable);
  if (connectors.length === 0) {
    const vouched =
      live.length > 0 &&
      live.every((w) => w.metrics !== null && w.metrics.taskCount === 0 && w.metrics.connectorCount === 0);
    return vouched ? { kind: "empty" } : { kind: "no-connectors-unconfirmed" };
  }
  const items = connectors.flatMap((c) => [
    ...(SETTLED_TASK_STATES.has(c.state) || c.state === "STOPPED"
      ? []
      : [{ connector: c.name, task: null, state: c.state }]),
    ...c.tasks
      .filter((t) => !SETTLED_TASK_STATES.has(t.state))
      .map((t) => ({ connector: c.name, task: t.id, state: t.state })),
  ]);
  if (items.length > 0) return { kind: "not-started", items };
  const workers = live.filter((w) => w.metrics?.rebalancing === true).map((w) => w.name);
  if (workers.length > 0) return { kind: "rebalancing", workers };
  return null;
}
