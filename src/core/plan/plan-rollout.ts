import { formatDuration } from "../format-duration.js";
import type { ConnectProtocol, ConnectProtocolSetting } from "../protocol.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { adviseDelay } from "./advise-delay.js";
import { findConnectorFindings } from "./connector-findings.js";
import { countConfiguredTasks, countWorkerTasks } from "./count-worker-tasks.js";
import { findDataFlowFindings } from "./data-flow-findings.js";
import { findDowngradeFindings } from "./downgrade-findings.js";
import { findExactlyOnceFindings } from "./exactly-once-findings.js";
import { forecastPace, recommendPace } from "./forecast-paces.js";
import { groupPaceWindows } from "./group-pace-windows.js";
import { orderWorkers } from "./order-workers.js";
import {
  type Finding,
  type PaceForecast,
  type PaceWindow,
  type Plan,
  type PlanDataFlow,
  type PlanPolicy,
  type PlanStep,
  ROLLOUT_PACES,
  type RolloutTarget,
} from "./plan-types.js";
import { predictProtocols, reconcileObservedProtocol } from "./predict-protocols.js";
import { predictStepCost, REBALANCE_ALLOWANCE_MS, type StepCost } from "./predict-step-cost.js";
import { findProtocolFindings } from "./protocol-findings.js";
import { resolveLeader } from "./resolve-leader.js";
import { resolvePlanPolicy } from "./resolve-plan-policy.js";
import { windowTiming } from "./window-timing.js";
import { findWorkerFindings } from "./worker-findings.js";

const WINDOW_NOTE =
  "An eager window covers the steps during which the group runs eager (every rebalance stops every task); its last step is the one after which the group becomes cooperative again.";

/**
 * The rollout plan: order, protocol per step, delay analysis, predicted disruption, data flow and preflight findings.
 * `dataFlow` is what the caller learned from the per-task metrics (default: read from this snapshot alone).
 */
export function planRollout(
  snapshot: ClusterSnapshot,
  target: RolloutTarget,
  policy: PlanPolicy,
  dataFlow: PlanDataFlow = dataFlowOf(snapshot),
): Plan {
  const own = planInPace(snapshot, target, policy, dataFlow);
  // Each pace planned in its own order, for what it is expected to cost here.
  const paces = ROLLOUT_PACES.flatMap((pace) => {
    const f =
      pace === own.plan.pace
        ? own.forecast
        : planInPace(snapshot, target, { ...policy, pace }, dataFlow).forecast;
    return f === null ? [] : [f];
  });
  return { ...own.plan, totals: { ...own.plan.totals, paces, recommendedPace: recommendPace(paces) } };
}

function planInPace(
  snapshot: ClusterSnapshot,
  target: RolloutTarget,
  policy: PlanPolicy,
  dataFlow: PlanDataFlow,
): { plan: Plan; forecast: PaceForecast | null } {
  const p = resolvePlanPolicy(policy);
  const leader = resolveLeader(snapshot);
  const order = orderWorkers(snapshot, target, leader, p.pace === "rotate");
  const settingOf = (name: string): ConnectProtocolSetting =>
    Object.hasOwn(p.connectProtocolByWorker, name)
      ? (p.connectProtocolByWorker[name] ?? null)
      : p.connectProtocol;
  const versionAfter = (current: string | null) =>
    target.kind === "upgrade" ? target.version : (current ?? target.version);
  const skippedNames = new Set(order.skipped.map((s) => s.worker));
  const members = [
    ...order.ordered.map((o) => ({ worker: o.worker, restarted: true })),
    ...snapshot.workers
      .filter((w) => skippedNames.has(w.name))
      .map((worker) => ({ worker, restarted: false })),
  ].map((m) => ({ ...m, setting: settingOf(m.worker.name), versionAfter: versionAfter(m.worker.version) }));
  const forecast = reconcileObservedProtocol(predictProtocols(members), observedGroupProtocol(snapshot));

  const assignorVersions = snapshot.workers.flatMap((w) => (w.version === null ? [] : [w.version]));
  if (target.kind === "upgrade") assignorVersions.push(target.version);
  const delay = adviseDelay(p, assignorVersions);
  const totalTasks = countConfiguredTasks(snapshot);
  const costInput = (index: number, heldMs?: number) => {
    const o = order.ordered[index];
    return {
      isLeader: o?.isLeader ?? false,
      eager: forecast.steps[index]?.exposure === "eager",
      tasks: o ? countWorkerTasks(snapshot, o.worker) : 0,
      totalTasks,
      workers: snapshot.workers.length,
      delayMs: delay.analysis.delayMs,
      restartMs: p.expectedRestartMs,
      zeroDelayReassigns: delay.zeroDelayReassigns,
      settleMs: p.settleAllowanceMs,
      ...(heldMs === undefined ? {} : { heldMs }),
    };
  };
  const safeCosts = order.ordered.map((_, i) => predictStepCost(costInput(i)));
  const timing = windowTiming(p, delay.analysis.delayMs);
  const windows: PaceWindow[] =
    p.pace === "window"
      ? groupPaceWindows(
          safeCosts.map((c, i) => ({
            step: i + 1,
            windowable:
              c.disruption === "held" &&
              !(order.ordered[i]?.isLeader ?? true) &&
              delay.analysis.restartFitsInDelay,
            tasks: costInput(i).tasks,
            isLeader: order.ordered[i]?.isLeader ?? false,
            mayClose:
              p.leaderClosesLastWindow &&
              i === order.ordered.length - 1 &&
              c.disruption === "leader" &&
              delay.analysis.delayMs > 0,
          })),
          { totalTasks, timing, maxHeldShare: p.windowMaxHeldShare },
        )
      : [];
  const windowOf = (step: number) => windows.findIndex((w) => w.steps.includes(step));
  const costs: StepCost[] = safeCosts.map((safe, i) => {
    const w = windows[windowOf(i + 1)];
    if (!w || safe.disruption !== "held") return safe;
    const position = w.steps.indexOf(i + 1);
    const followers = w.closedByLeader === true ? w.steps.length - 1 : w.steps.length;
    // Held until the deadline, or (a window the leader closes) until the leader's stop.
    const heldMs =
      w.closedByLeader === true
        ? (followers - position) * timing.stepMs
        : delay.analysis.delayMs - position * timing.stepMs;
    return predictStepCost(costInput(i, heldMs));
  });

  const steps: PlanStep[] = order.ordered.map((o, i) => {
    const protocol = forecast.steps[i];
    const cost = costs[i] ?? predictStepCost(costInput(i));
    const windowIndex = windowOf(i + 1);
    return {
      step: i + 1,
      worker: o.worker.name,
      workerId: o.worker.workerId,
      isLeader: o.isLeader,
      fromVersion: o.worker.version,
      toVersion: versionAfter(o.worker.version),
      tasks: costInput(i).tasks,
      protocolBefore: protocol?.before ?? null,
      protocolDuring: protocol?.during ?? null,
      protocolAfter: protocol?.after ?? null,
      disruption: cost.disruption,
      predictedDowntimeMs: cost.downtimeMs,
      predictedTaskDowntimeMs: cost.taskDowntimeMs,
      predictedMoves: cost.moves,
      predictedInterruptions: cost.interruptions,
      predictedWallMs: cost.wallMs,
      window: windowIndex >= 0 ? windowIndex : null,
      reasons: [...o.reasons, ...costReasons(cost, windows[windowIndex], delay.analysis.delayMs)],
    };
  });

  const findings: Finding[] = [
    ...findWorkerFindings(snapshot, p, leader),
    ...findConnectorFindings(snapshot),
    ...findExactlyOnceFindings(snapshot, p, leader),
    ...delay.findings,
    ...findProtocolFindings(forecast),
    ...findDowngradeFindings(steps, target),
    ...findDataFlowFindings(dataFlow),
    ...order.skipped.map((s) => ({
      severity: "info" as const,
      code: "already-on-target",
      message: `${s.worker} skipped: ${s.reason}.`,
    })),
  ];
  if (steps.length === 0) {
    findings.push({
      severity: "info",
      code: "nothing-to-do",
      message: "Every worker already runs the target version.",
    });
  }
  const notes: string[] = [];
  if (leader.kind === "unknown") notes.push(`The order could not be made leader-last: ${leader.reason}.`);
  if (forecast.eagerWindows.length > 0) notes.push(WINDOW_NOTE);

  const sum = (pick: (s: PlanStep) => number) => steps.reduce((acc, s) => acc + pick(s), 0);
  const leaderIndex = order.ordered.findIndex((o) => o.isLeader);
  const rotateCosts =
    leaderIndex < 0
      ? null
      : order.ordered.map((_, i) => ({
          asLeader: predictStepCost({ ...costInput(i), isLeader: true }),
          asFollower: safeCosts[i] ?? predictStepCost(costInput(i)),
        }));
  const safeWall = safeCosts.reduce((acc, c) => acc + c.wallMs, 0);
  const windowWall =
    safeCosts.reduce((acc, c, i) => acc + (windowOf(i + 1) >= 0 ? 0 : c.wallMs), 0) +
    windows.reduce(
      (acc, w) =>
        acc +
        (w.closedByLeader === true
          ? (w.steps.length - 1) * timing.stepMs + (safeCosts[(w.steps.at(-1) ?? 1) - 1]?.wallMs ?? 0)
          : delay.analysis.delayMs + REBALANCE_ALLOWANCE_MS + p.settleAllowanceMs),
      0,
    );
  const paceForecast = forecastPace(p.pace, {
    totalTasks,
    groupSize: snapshot.workers.length,
    costs,
    wallMs: p.pace === "window" ? windowWall : safeWall,
    heldShare: Math.max(0, ...windows.map((w) => w.predictedHeldShare)),
    rotate: rotateCosts === null ? null : { leaderIndex, costs: rotateCosts },
    tasksOf: (i) => costInput(i).tasks,
  });
  const plan: Plan = {
    cluster: snapshot.cluster,
    target,
    plannedAt: snapshot.readAt,
    pace: p.pace,
    leader,
    steps,
    skipped: order.skipped,
    eagerWindows: forecast.eagerWindows,
    compatibleWindows: forecast.compatibleWindows,
    windows,
    delay: delay.analysis,
    findings,
    dataFlow,
    totals: {
      steps: steps.length,
      predictedMoves: sum((s) => s.predictedMoves),
      predictedInterruptions: sum((s) => s.predictedInterruptions),
      predictedTaskDowntimeMs: sum((s) => s.predictedTaskDowntimeMs),
      predictedMaxDowntimeMs: steps.reduce((acc, s) => Math.max(acc, s.predictedDowntimeMs), 0),
      predictedWallMs: { safe: safeWall, window: windowWall },
    },
    needsApproval: findings.some((f) => f.severity === "block") || forecast.eagerWindows.length > 0,
    notes,
  };
  return { plan, forecast: paceForecast };
}

function costReasons(cost: StepCost, window: PaceWindow | undefined, delayMs: number): string[] {
  const reasons: string[] = [];
  if (cost.disruption === "eager") {
    reasons.push("the group runs eager during this step: every task in the cluster stops at each rebalance");
  } else if (cost.disruption === "reassigned") {
    reasons.push(
      delayMs === 0
        ? "delay 0: its tasks are reassigned to the survivors at once and part move back when it returns"
        : "its restart outlasts the delay: its tasks go to the survivors at the deadline and part move back",
    );
  } else if (cost.disruption === "held" && delayMs > 0) {
    reasons.push(
      window?.closedByLeader === true
        ? `its tasks stay down until the leader's stop hands them out (about ${formatDuration(cost.downtimeMs)})`
        : `its tasks stay down until the delay expires (about ${formatDuration(cost.downtimeMs)})`,
    );
  }
  if (window && cost.disruption === "leader")
    reasons.push(
      `closes the delay window of steps ${window.steps.slice(0, -1).join(", ")}: restarted once they are back, still last`,
    );
  else if (window) reasons.push(`restarted in one delay window with steps ${window.steps.join(", ")}`);
  return reasons;
}

/** The protocol every reachable worker's metric reports now, or null when they disagree or none reports it. */
function observedGroupProtocol(snapshot: ClusterSnapshot): ConnectProtocol | null {
  const seen = new Set(
    snapshot.workers.flatMap((w) => (w.reachable && w.metrics?.protocol ? [w.metrics.protocol] : [])),
  );
  const [only] = seen;
  return seen.size === 1 && only !== undefined ? only : null;
}

/**
 * Data flow as one read shows it: visible when some worker's metrics have per-task series (which tasks flow needs a
 * second read), else unseen, naming the reachable workers that run tasks without them.
 */
export function dataFlowOf(snapshot: ClusterSnapshot): PlanDataFlow {
  const live = snapshot.workers.filter((w) => w.reachable);
  const without = live.filter((w) => (w.metrics?.taskFlow ?? null) === null).map((w) => w.name);
  return without.length < live.length ? { kind: "learning" } : { kind: "unseen", workers: without };
}
