import { formatDuration } from "../format-duration.js";
import { planRollout } from "../plan/plan-rollout.js";
import type { Plan, RolloutTarget } from "../plan/plan-types.js";
import { replanWindows } from "../plan/replan-windows.js";
import { captureBaseline } from "../settle/capture-baseline.js";
import { evaluateSettle } from "../settle/evaluate-settle.js";
import type { Baseline, GateReason } from "../settle/settle-types.js";
import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";
import { versionMatches } from "../version.js";
import {
  type ApprovalKind,
  type Decision,
  type PendingApproval,
  type Phase,
  type ResumePoint,
  ROLLOUT_STATE_VERSION,
  type RolloutEffect,
  type RolloutEvent,
  type RolloutInput,
  type RolloutResult,
  type RolloutSettings,
  type RolloutState,
  type StepRecord,
  type Transition,
} from "./rollout-types.js";
import {
  addDelta,
  freezeChanges,
  freezeOf,
  keepLeaderLast,
  pendingStep,
  startedSince,
  stepAt,
  updateStep,
} from "./step-helpers.js";
import { EMPTY_TRACK, trackDisruption } from "./track-disruption.js";
import { sameWindow } from "./window-key.js";
import {
  HELD_POLL_CAP_MS,
  watchBack,
  windowContinuation,
  windowGatePollMs,
  windowKeyOf,
} from "./window-pace.js";

export interface StartRollout {
  readonly jobId: string;
  readonly cluster: string;
  readonly target: RolloutTarget;
  readonly image: string | null;
  readonly requestedBy: string;
  readonly settings: RolloutSettings;
  readonly now: number;
}

/** A new rollout: it first reads the cluster to plan. */
export function startRollout(start: StartRollout): Transition {
  const state: RolloutState = {
    v: ROLLOUT_STATE_VERSION,
    jobId: start.jobId,
    cluster: start.cluster,
    target: start.target,
    image: start.image,
    requestedBy: start.requestedBy,
    startedAt: start.now,
    updatedAt: start.now,
    finishedAt: null,
    settings: start.settings,
    phase: { kind: "planning" },
    plan: null,
    steps: [],
    freeze: null,
    approvals: [],
    granted: [],
    pendingControl: null,
    track: EMPTY_TRACK,
    seq: 0,
    openWindow: null,
  };
  return { state, effects: [{ kind: "read-cluster", afterMs: 0 }] };
}

const emit = (event: RolloutEvent): RolloutEffect => ({ kind: "emit", event });

/** The action that continues a phase, for resumption and for inputs a phase ignores. */
export function nextAction(state: RolloutState): RolloutEffect {
  const p = state.phase;
  switch (p.kind) {
    case "awaiting-approval":
      return { kind: "await-approval", approval: p.approval };
    case "paused":
      return { kind: "await-resume" };
    case "finished":
      return { kind: "finish", result: p.result };
    case "restarting":
      return { kind: "read-cluster", afterMs: 0 };
    default:
      return {
        kind: "read-cluster",
        afterMs: p.kind === "planning" || p.kind === "before-step" ? 0 : state.settings.pollIntervalMs,
      };
  }
}

function stay(state: RolloutState): Transition {
  return { state, effects: [nextAction(state)] };
}

function finish(
  state: RolloutState,
  now: number,
  result: RolloutResult,
  reason: string,
  effects: RolloutEffect[] = [],
): Transition {
  const done: RolloutState = {
    ...state,
    phase: { kind: "finished", result, reason },
    finishedAt: now,
    updatedAt: now,
  };
  return {
    state: done,
    effects: [...effects, emit({ kind: "rollout-finished", result, reason }), { kind: "finish", result }],
  };
}

function ask(
  state: RolloutState,
  now: number,
  approval: Omit<PendingApproval, "id" | "askedAt">,
  resume: ResumePoint,
  effects: RolloutEffect[] = [],
): Transition {
  const seq = state.seq + 1;
  const pending: PendingApproval = { ...approval, id: `${state.jobId}:a${seq}`, askedAt: now };
  const next: RolloutState = {
    ...state,
    seq,
    phase: { kind: "awaiting-approval", approval: pending, resume },
    updatedAt: now,
  };
  return {
    state: next,
    effects: [
      ...effects,
      emit({ kind: "approval-requested", approval: pending }),
      { kind: "await-approval", approval: pending },
    ],
  };
}

function targetVersionFor(state: RolloutState, step: StepRecord): string {
  return state.target.kind === "upgrade" ? state.target.version : (step.fromVersion ?? "");
}

function reasonLines(reasons: readonly GateReason[]): string[] {
  return reasons.map((r) => r.message);
}

/** The pure transition function: next state and the effects the runner must perform. */
export function decide(state: RolloutState, input: RolloutInput): Transition {
  if (state.phase.kind === "finished")
    return { state, effects: [{ kind: "finish", result: state.phase.result }] };
  const now = input.now;
  let s: RolloutState = { ...state, updatedAt: now };
  if (input.kind === "control-requested") return onControl(s, input.action, input.by, now);
  if (input.kind === "taken-over") return onTakeover(s, input.owner, now);
  if (input.kind === "approval-decided")
    return onDecision(s, input.approvalId, input.decision, input.by, now);

  if (input.kind === "worker-probed") return onProbed(s, input.worker, now);
  if (input.kind === "cluster-read") {
    const tracked = trackDisruption(s.track, input.snapshot);
    s = { ...s, track: tracked.track };
    const inFlight =
      s.phase.kind === "restarting" ||
      s.phase.kind === "waiting-back" ||
      s.phase.kind === "settling" ||
      s.phase.kind === "verifying-restart";
    if (inFlight && "step" in s.phase) {
      const step = stepAt(s, s.phase.step);
      if (step) s = updateStep(s, step.step, { measurements: addDelta(step.measurements, tracked.delta) });
    }
    return onClusterRead(s, input.snapshot, now);
  }
  // restart results
  const phase = s.phase;
  if (phase.kind !== "restarting" || phase.step !== input.step) return stay(s);
  const step = stepAt(s, phase.step);
  if (!step) return stay(s);
  if (input.kind === "restart-accepted") {
    s = updateStep(s, step.step, { status: "waiting-back", restartDetail: input.detail });
    s = {
      ...s,
      phase: { kind: "waiting-back", step: step.step, since: now, seenDown: false, baseline: phase.baseline },
    };
    return {
      state: s,
      effects: [
        emit({ kind: "restart-issued", step: step.step, worker: step.worker, detail: input.detail }),
        watchBack(s, step),
      ],
    };
  }
  s = updateStep(s, step.step, { status: "failed", note: input.message });
  return ask(
    s,
    now,
    {
      kind: "restart-failed",
      step: step.step,
      prompt: `Restarting ${step.worker} failed${input.mayHaveRun ? " (it may have run partly)" : ""}. Retry the restart?`,
      details: [
        input.message,
        ...(input.mayHaveRun ? ["Check the worker before retrying: the executor may have acted."] : []),
      ],
      options: ["approve", "abort"],
    },
    { kind: "retry-restart", step: step.step, baseline: phase.baseline },
  );
}

function onClusterRead(s: RolloutState, snapshot: ClusterSnapshot, now: number): Transition {
  const phase = s.phase;
  switch (phase.kind) {
    case "planning":
      return onPlanning(s, snapshot, now);
    case "before-step":
      return beforeStep(s, phase.step, snapshot, now, []);
    case "waiting-back":
      return onWaitingBack(s, phase, snapshot, now);
    case "verifying-restart":
      return onVerifying(s, phase, snapshot, now);
    case "settling":
      return onSettling(s, phase, snapshot, now);
    default:
      return stay(s);
  }
}

function onPlanning(s: RolloutState, snapshot: ClusterSnapshot, now: number): Transition {
  if (snapshot.connectors === null)
    return finish(
      s,
      now,
      "failed",
      `cannot read the connectors of ${s.cluster}: ${snapshot.connectorsError ?? "no worker answered"}; nothing was restarted`,
    );
  const unsettled = unsettledBaseline(snapshot);
  if (unsettled !== null && unsettled !== "empty") {
    // A baseline taken while the cluster comes up (no connectors yet, tasks not started) would make every connector
    // look "created during the rollout" and every task look moved: wait for a settled one, then refuse with the reason.
    const waitMs = s.settings.gatePolicy.expectedSettleMs;
    if (now - s.startedAt < waitMs)
      return { state: s, effects: [{ kind: "read-cluster", afterMs: s.settings.pollIntervalMs }] };
    return finish(
      s,
      now,
      "failed",
      `the cluster did not settle before the start (${unsettled}) within ${formatDuration(waitMs)}; nothing was restarted. Start again once it has settled`,
    );
  }
  // No connectors at all: keep looking until the deadline (a cluster that just came up gets its connectors a moment
  // later); a cluster still empty then, whose metrics confirm it, has nothing to protect.
  if (unsettled === "empty" && now - s.startedAt < s.settings.gatePolicy.expectedSettleMs)
    return { state: s, effects: [{ kind: "read-cluster", afterMs: s.settings.pollIntervalMs }] };
  const plan: Plan = planRollout(snapshot, s.target, s.settings.planPolicy);
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
  let next: RolloutState = {
    ...s,
    plan,
    steps,
    freeze: freezeOf(snapshot),
    phase: { kind: "before-step", step: 1 },
  };
  const planned = emit({ kind: "rollout-planned", plan });
  if (steps.length === 0)
    return finish(next, now, "succeeded", "every worker already runs the target version; nothing to do", [
      planned,
    ]);
  const blocking = plan.findings.filter((f) => f.severity === "block");
  if (blocking.length > 0) {
    return ask(
      next,
      now,
      {
        kind: "blocking-findings",
        step: null,
        prompt: `The preflight found ${blocking.length} blocking problem(s) on ${s.cluster}. Start anyway?`,
        details: blocking.map((f) => f.message),
        options: ["approve", "abort"],
      },
      { kind: "before-step", step: 1, approved: "blocking-findings" },
      [planned],
    );
  }
  next = { ...next, phase: { kind: "before-step", step: 1 } };
  return beforeStep(next, 1, snapshot, now, [planned]);
}

const SETTLED_TASK_STATES: ReadonlySet<string> = new Set(["RUNNING", "PAUSED", "FAILED"]);

/**
 * Why this first read cannot be a baseline, or null when it can: no connectors while some worker's metrics show
 * assigned work or no metrics vouch for an empty cluster; `"empty"` when there are no connectors and every worker's
 * metrics agree (a baseline only once the wait is over); a connector or task not started yet (UNASSIGNED,
 * RESTARTING, UNKNOWN); or a worker in a rebalance. FAILED tasks are settled (the plan's blocking findings ask).
 */
export function unsettledBaseline(snapshot: ClusterSnapshot): string | null {
  const connectors = snapshot.connectors ?? [];
  const live = snapshot.workers.filter((w) => w.reachable);
  if (connectors.length === 0) {
    const vouched =
      live.length > 0 &&
      live.every((w) => w.metrics !== null && w.metrics.taskCount === 0 && w.metrics.connectorCount === 0);
    return vouched
      ? "empty"
      : "the cluster shows no connectors, and its workers' metrics do not confirm it is empty";
  }
  const starting = connectors.flatMap((c) => [
    ...(SETTLED_TASK_STATES.has(c.state) || c.state === "STOPPED" ? [] : [`${c.name} ${c.state}`]),
    ...c.tasks.filter((t) => !SETTLED_TASK_STATES.has(t.state)).map((t) => `${c.name}/${t.id} ${t.state}`),
  ]);
  if (starting.length > 0)
    return `not started yet: ${starting.slice(0, 5).join(", ")}${starting.length > 5 ? ` and ${starting.length - 5} more` : ""}`;
  const rebalancing = live.filter((w) => w.metrics?.rebalancing === true).map((w) => w.name);
  if (rebalancing.length > 0) return `rebalancing: ${rebalancing.join(", ")}`;
  return null;
}

function isGranted(s: RolloutState, kind: ApprovalKind, step: number): boolean {
  return s.granted.some((g) => g.kind === kind && g.step === step);
}

function eagerWindowStart(s: RolloutState, worker: string): number | null {
  const plan = s.plan;
  if (!plan) return null;
  const planStep = plan.steps.find((p) => p.worker === worker);
  if (!planStep) return null;
  const window = plan.eagerWindows.find((w) => planStep.step >= w.fromStep && planStep.step <= w.toStep);
  return window ? window.fromStep : null;
}

function beforeStep(
  s: RolloutState,
  stepNo: number,
  snapshot: ClusterSnapshot,
  now: number,
  effects: RolloutEffect[],
): Transition {
  if (s.pendingControl) {
    const control = s.pendingControl;
    const cleared: RolloutState = { ...s, pendingControl: null };
    if (control.action === "abort")
      return finish(cleared, now, "aborted", `aborted by ${control.by} before step ${stepNo}`, effects);
    return pauseAt(cleared, stepNo, control.by, now, effects);
  }
  const step = stepAt(s, stepNo);
  if (!step) {
    // Succeeded only when every step settled (or was already on the target): a step continued past its gate by a
    // person is reported as not settled, so the result tells the truth about the cluster.
    const continued = s.steps.filter((x) => x.status === "continued").map((x) => x.worker);
    if (continued.length > 0)
      return finish(
        s,
        now,
        "failed",
        `every worker was restarted, but ${continued.join(", ")} continued without a passed settle gate (by approval)`,
        effects,
      );
    return finish(
      s,
      now,
      "succeeded",
      "every worker was restarted and the cluster settled after each step",
      effects,
    );
  }
  const worker = snapshot.workers.find((w) => w.name === step.worker);
  // config freeze
  if (s.freeze && snapshot.connectors !== null) {
    const changes = freezeChanges(s.freeze, snapshot);
    if (changes.length > 0) {
      // The grant covers the change it was asked about: consumed here, so a later change is asked about again.
      if (isGranted(s, "config-changed", stepNo))
        s = {
          ...s,
          freeze: freezeOf(snapshot),
          granted: s.granted.filter((g) => !(g.kind === "config-changed" && g.step === stepNo)),
        };
      else
        return ask(
          s,
          now,
          {
            kind: "config-changed",
            step: stepNo,
            prompt: `Connector configuration changed during the rollout of ${s.cluster}. Continue with the new configuration?`,
            details: changes,
            options: ["continue", "abort"],
          },
          { kind: "before-step", step: stepNo, approved: "config-changed" },
          effects,
        );
    }
  }
  // Facts over memory: whether the worker still needs its step comes from the cluster (its version for an upgrade, its
  // process start time for a plain restart), so a lost or stale checkpoint never restarts a worker twice.
  const onTarget =
    worker?.reachable === true &&
    (s.target.kind === "upgrade"
      ? worker.version !== null && versionMatches(worker.version, s.target.version)
      : startedSince(worker, step.attempts > 0 ? step.restartIssuedAt : (s.target.since ?? s.startedAt)));
  // A retried step whose earlier attempt did restart the worker (the executor failed or timed out after acting): it
  // is not skipped but gated, against the baseline from before the first attempt.
  if (onTarget && step.status === "pending" && step.attempts > 0) {
    const retryBaseline = s.phase.kind === "before-step" ? (s.phase.retryBaseline ?? null) : null;
    const captured =
      retryBaseline ??
      (() => {
        const c = captureBaseline(snapshot, {
          step: stepNo,
          worker: step.worker,
          targetVersion: targetVersionFor(s, step),
          stopIssuedAt: step.restartIssuedAt ?? now,
          delayMs: s.settings.delayMs,
          sessionTimeoutMs: s.settings.sessionTimeoutMs,
          isLeader: step.isLeader,
        });
        return c.kind === "captured" ? c.baseline : null;
      })();
    if (captured) {
      const t = workerBack(s, step, captured, snapshot, now);
      return { state: t.state, effects: [...effects, ...t.effects] };
    }
  }
  // already on the target (resume after a takeover, or upgraded by someone else)
  if (onTarget && step.status === "pending" && step.attempts === 0 && worker) {
    const why =
      s.target.kind === "upgrade"
        ? `already runs ${worker.version}`
        : `already restarted since the rollout began (process started ${new Date(worker.metrics?.startTimeMs ?? 0).toISOString()})`;
    const skipped = updateStep(s, stepNo, { status: "skipped", note: why });
    return beforeStep(
      { ...skipped, phase: { kind: "before-step", step: stepNo + 1 } },
      stepNo + 1,
      snapshot,
      now,
      [...effects, emit({ kind: "step-skipped", step: stepNo, worker: step.worker, reason: why })],
    );
  }
  const reordered = keepLeaderLast(s, stepNo, snapshot);
  if (reordered) {
    const moved = stepAt(s, stepNo);
    return beforeStep(reordered, stepNo, snapshot, now, [
      ...effects,
      emit({
        kind: "step-reordered",
        step: reordered.steps.length,
        worker: moved?.worker ?? "",
        reason: "it is the group leader now; the leader is restarted last",
      }),
    ]);
  }
  const windowStart = eagerWindowStart(s, step.worker);
  if (windowStart !== null && !isGranted(s, "eager-window", windowStart)) {
    return ask(
      s,
      now,
      {
        kind: "eager-window",
        step: stepNo,
        prompt: `Restarting ${step.worker} enters a mixed-version window in which the group runs the eager protocol: every rebalance stops every task in ${s.cluster}. Proceed?`,
        details: [
          "Workers older than 2.3 (or with connect.protocol=eager) only speak the eager protocol; the group negotiates eager until the last of them leaves (see docs/connect-behaviour.md#protocol-negotiation).",
          "Finish this window promptly: every rebalance inside it is stop-the-world.",
        ],
        options: ["approve", "abort"],
      },
      { kind: "before-step", step: stepNo, approved: "eager-window" },
      effects,
    );
  }
  const windowKey = windowKeyOf(s, step.worker);
  const eagerStep = windowKey?.kind === "eager";
  if (windowKey !== null && !sameWindow(s.openWindow?.key ?? null, windowKey))
    s = {
      ...s,
      openWindow: { key: windowKey, snapshot, deadline: eagerStep ? null : now + s.settings.delayMs },
    };
  if (windowKey === null && s.openWindow) s = { ...s, openWindow: null };
  const open = windowKey !== null ? s.openWindow : null;
  const baseline = captureBaseline(open ? open.snapshot : snapshot, {
    step: stepNo,
    worker: step.worker,
    targetVersion: targetVersionFor(s, step),
    stopIssuedAt: now,
    // An eager group has no scheduled delay: every rebalance reassigns everything at once.
    delayMs: eagerStep ? 0 : s.settings.delayMs,
    sessionTimeoutMs: s.settings.sessionTimeoutMs,
    isLeader: step.isLeader,
    ...(open && open.deadline !== null ? { openWindowDeadline: open.deadline } : {}),
  });
  if (baseline.kind !== "captured") return finish(s, now, "failed", baseline.message, effects);
  const attempts = step.attempts + 1;
  const stepId = `${s.jobId}:${stepNo}:${attempts}`;
  let next = updateStep(s, stepNo, {
    status: "restart-issued",
    attempts,
    restartIssuedAt: now,
    note: null,
    gate: [],
  });
  next = { ...next, phase: { kind: "restarting", step: stepNo, stepId, baseline: baseline.baseline } };
  return {
    state: next,
    effects: [
      ...effects,
      emit({ kind: "step-started", step: stepNo, worker: step.worker }),
      { kind: "restart-worker", step: stepNo, stepId, worker: step.worker },
    ],
  };
}

function pauseAt(
  s: RolloutState,
  step: number,
  by: string,
  now: number,
  effects: RolloutEffect[] = [],
): Transition {
  const next: RolloutState = { ...s, phase: { kind: "paused", step, by, at: now } };
  return {
    state: next,
    effects: [...effects, emit({ kind: "rollout-paused", by, step }), { kind: "await-resume" }],
  };
}

function isBack(
  s: RolloutState,
  step: StepRecord,
  w: WorkerSnapshot | undefined,
  seenDown: boolean,
  since: number,
  now: number,
): boolean {
  if (!w?.reachable) return false;
  if (s.target.kind === "upgrade") return w.version !== null && versionMatches(w.version, s.target.version);
  return seenDown || startedSince(w, step.restartIssuedAt) || now - since >= s.settings.expectedRestartMs;
}

/** The step in flight and what the poll says of its worker; null when the step is gone. */
function observeWorker(
  s: RolloutState,
  phase: { readonly step: number; readonly seenDown: boolean },
  snapshot: ClusterSnapshot,
): { step: StepRecord; worker: ClusterSnapshot["workers"][number] | undefined; seenDown: boolean } | null {
  const step = stepAt(s, phase.step);
  if (!step) return null;
  const worker = snapshot.workers.find((x) => x.name === step.worker);
  return { step, worker, seenDown: phase.seenDown || !worker?.reachable };
}

function onWaitingBack(
  s: RolloutState,
  phase: Extract<Phase, { kind: "waiting-back" }>,
  snapshot: ClusterSnapshot,
  now: number,
): Transition {
  const seen = observeWorker(s, phase, snapshot);
  if (!seen) return stay(s);
  const { step, worker: w, seenDown } = seen;
  if (isBack(s, step, w, seenDown, phase.since, now))
    return workerBack(s, step, phase.baseline, snapshot, now);
  return notBackYet(s, phase, step, w, seenDown, now);
}

/**
 * A probe of the restarted worker alone: once it looks back, the whole cluster is read (the window's next step and
 * the gate need it); until then, the next probe.
 */
function onProbed(s: RolloutState, worker: WorkerSnapshot, now: number): Transition {
  const phase = s.phase;
  if (phase.kind !== "waiting-back") return stay(s);
  const step = stepAt(s, phase.step);
  if (!step || step.worker !== worker.name) return stay(s);
  const seenDown = phase.seenDown || !worker.reachable;
  if (isBack(s, step, worker, seenDown, phase.since, now))
    return {
      state: { ...s, phase: { ...phase, seenDown } },
      effects: [{ kind: "read-cluster", afterMs: 0 }],
    };
  return notBackYet(s, phase, step, worker, seenDown, now);
}

function notBackYet(
  s: RolloutState,
  phase: Extract<Phase, { kind: "waiting-back" }>,
  step: StepRecord,
  w: WorkerSnapshot | undefined,
  seenDown: boolean,
  now: number,
): Transition {
  if (now - phase.since > s.settings.backTimeoutMs) {
    return ask(
      { ...s, phase: { ...phase, seenDown } },
      now,
      {
        kind: "slow-gate",
        step: step.step,
        prompt: `${step.worker} has not come back on ${targetVersionFor(s, step)} after ${formatDuration(now - phase.since)}. Keep waiting?`,
        details: [
          w?.reachable
            ? `it answers, reporting version ${w.version ?? "unknown"}`
            : `it does not answer: ${w?.error ?? "unreachable"}`,
        ],
        options: ["keep-waiting", "abort"],
      },
      { kind: "settling", step: step.step, baseline: phase.baseline },
    );
  }
  return { state: { ...s, phase: { ...phase, seenDown } }, effects: [watchBack(s, step, now)] };
}

function workerBack(
  s: RolloutState,
  step: StepRecord,
  baseline: Baseline,
  snapshot: ClusterSnapshot,
  now: number,
): Transition {
  const w = snapshot.workers.find((x) => x.name === step.worker);
  const restartMs = now - (step.restartIssuedAt ?? now);
  const next = updateStep(s, step.step, {
    status: "settling",
    backAt: now,
    backVersion: w?.version ?? null,
    measurements: { ...step.measurements, restartMs },
  });
  const back = emit({
    kind: "worker-back",
    step: step.step,
    worker: step.worker,
    version: w?.version ?? null,
    restartMs,
  });
  const continuation = windowContinuation(next, step, snapshot, now);
  if (continuation === "cut-short" && next.plan) {
    // Cut short by the deadline: this window ends with this worker (its gate waits for the deadline), and the
    // workers still to go are grouped again into windows of their own instead of each waiting a full delay alone.
    const remaining = next.steps
      .filter((x) => x.step > step.step && x.status === "pending")
      .map((x) => x.worker);
    const replanned: RolloutState = {
      ...updateStep(next, step.step, {
        note: `the next worker would not be back before the window's deadline: the window ends here and ${remaining.length} remaining worker(s) are grouped again`,
      }),
      plan: replanWindows(next.plan, next.settings.planPolicy, remaining),
    };
    return gateAfterBack(replanned, step, baseline, snapshot, now, back);
  }
  if (continuation === "continue") {
    const note =
      "rejoined inside the scheduled-delay window; the settle gate runs once the window's last worker is back";
    const done = updateStep(next, step.step, {
      status: "settled",
      settledAt: now,
      note,
      measurements: { ...step.measurements, restartMs, settleMs: 0 },
    });
    const measurements = stepAt(done, step.step)?.measurements ?? step.measurements;
    return nextStep(done, step.step, snapshot, now, [
      back,
      emit({ kind: "step-settled", step: step.step, worker: step.worker, measurements }),
    ]);
  }
  return gateAfterBack(next, step, baseline, snapshot, now, back);
}

function gateAfterBack(
  s: RolloutState,
  step: StepRecord,
  baseline: Baseline,
  snapshot: ClusterSnapshot,
  now: number,
  back: RolloutEffect,
): Transition {
  const settling: RolloutState = {
    ...s,
    phase: { kind: "settling", step: step.step, baseline, polls: [], askSlowAfter: null },
  };
  const t = onSettling(settling, settling.phase as Extract<Phase, { kind: "settling" }>, snapshot, now);
  return { state: t.state, effects: [back, ...t.effects] };
}

function onVerifying(
  s: RolloutState,
  phase: Extract<Phase, { kind: "verifying-restart" }>,
  snapshot: ClusterSnapshot,
  now: number,
): Transition {
  const seen = observeWorker(s, phase, snapshot);
  if (!seen) return stay(s);
  const { step, worker: w } = seen;
  // A process that started after the restart was issued confirms it as surely as seeing the worker down.
  const seenDown = seen.seenDown || startedSince(w, step.restartIssuedAt);
  const baseline = phase.baseline;
  if (baseline && isBack(s, step, w, seenDown, phase.since, now) && (s.target.kind === "upgrade" || seenDown))
    return workerBack(s, step, baseline, snapshot, now);
  if (baseline && seenDown) {
    // It went down: the restart is confirmed. Wait for it like any restart (backTimeoutMs, then slow-gate), never
    // offer to restart it again.
    const waiting = updateStep(s, step.step, { status: "waiting-back" });
    return {
      state: {
        ...waiting,
        phase: { kind: "waiting-back", step: step.step, since: phase.since, seenDown, baseline },
      },
      effects: [{ kind: "read-cluster", afterMs: s.settings.pollIntervalMs }],
    };
  }
  const waited = now - phase.since;
  if (waited > s.settings.expectedRestartMs * 2 + s.settings.pollIntervalMs) {
    return ask(
      { ...s, phase: { ...phase, seenDown } },
      now,
      {
        kind: "restart-unconfirmed",
        step: step.step,
        prompt: `A restart of ${step.worker} was issued before a takeover but cannot be confirmed. Restart it again?`,
        details: [
          w?.reachable
            ? `${step.worker} answers and reports ${w.version ?? "an unknown version"}`
            : `${step.worker} does not answer`,
          "connect-roll never repeats a restart it cannot confirm without asking.",
        ],
        options: ["approve", "abort"],
      },
      { kind: "retry-restart", step: step.step, baseline: phase.baseline },
    );
  }
  return {
    state: { ...s, phase: { ...phase, seenDown } },
    effects: [{ kind: "read-cluster", afterMs: s.settings.pollIntervalMs }],
  };
}

function sameReasons(a: readonly GateReason[], b: readonly GateReason[]): boolean {
  return a.length === b.length && a.every((r, i) => r.code === b[i]?.code && r.message === b[i]?.message);
}

export { HELD_POLL_CAP_MS };

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

function onSettling(
  s: RolloutState,
  phase: Extract<Phase, { kind: "settling" }>,
  snapshot: ClusterSnapshot,
  now: number,
): Transition {
  const step = stepAt(s, phase.step);
  if (!step) return stay(s);
  const keep = Math.max(2, s.settings.gatePolicy.consecutivePolls + 1);
  const polls = [...phase.polls, snapshot].slice(-keep);
  const verdict = evaluateSettle({ baseline: phase.baseline, polls, policy: s.settings.gatePolicy, now });
  const settlingPhase: Phase = { ...phase, polls };
  if (verdict.kind === "settled") {
    const settleMs = now - (step.backAt ?? now);
    const done = updateStep(s, step.step, {
      status: "settled",
      settledAt: now,
      gate: [],
      measurements: { ...step.measurements, settleMs },
    });
    const measurements = stepAt(done, step.step)?.measurements ?? step.measurements;
    return nextStep(done, step.step, snapshot, now, [
      emit({ kind: "step-settled", step: step.step, worker: step.worker, measurements }),
    ]);
  }
  if (verdict.kind === "failed") {
    const failed = updateStep({ ...s, phase: settlingPhase }, step.step, { gate: verdict.reasons });
    return ask(
      failed,
      now,
      {
        kind: "gate-failed",
        step: step.step,
        prompt: `The settle gate failed after restarting ${step.worker}. Continue with the next worker anyway?`,
        details: reasonLines(verdict.reasons),
        options: ["continue", "abort"],
      },
      { kind: "step-done", step: step.step },
    );
  }
  const effects: RolloutEffect[] = [];
  let next = updateStep({ ...s, phase: settlingPhase }, step.step, { gate: verdict.reasons });
  if (!sameReasons(step.gate, verdict.reasons))
    effects.push(
      emit({ kind: "gate-waiting", step: step.step, worker: step.worker, reasons: verdict.reasons }),
    );
  const slow = verdict.reasons.some((r) => r.code === "gate-slow");
  if (slow && (phase.askSlowAfter === null || now >= phase.askSlowAfter)) {
    return ask(
      next,
      now,
      {
        kind: "slow-gate",
        step: step.step,
        prompt: `The cluster has not settled after restarting ${step.worker} (${formatDuration(now - (step.restartIssuedAt ?? now))} so far, delay included). Keep waiting?`,
        details: reasonLines(verdict.reasons),
        options: ["keep-waiting", "continue", "abort"],
      },
      { kind: "settling", step: step.step, baseline: phase.baseline },
      effects,
    );
  }
  next = { ...next, phase: settlingPhase };
  return {
    state: next,
    effects: [
      ...effects,
      {
        kind: "read-cluster",
        afterMs:
          windowKeyOf(s, step.worker)?.kind === "pace"
            ? windowGatePollMs(s, step, verdict.reasons, now)
            : nextPollMs(s.settings.pollIntervalMs, verdict.reasons),
      },
    ],
  };
}

function nextStep(
  s: RolloutState,
  done: number,
  snapshot: ClusterSnapshot,
  now: number,
  effects: RolloutEffect[],
): Transition {
  const next: RolloutState = { ...s, phase: { kind: "before-step", step: done + 1 } };
  if (next.pendingControl) return beforeStep(next, done + 1, snapshot, now, effects);
  return { state: next, effects: [...effects, { kind: "read-cluster", afterMs: 0 }] };
}

function onControl(
  s: RolloutState,
  action: "pause" | "resume" | "abort",
  by: string,
  now: number,
): Transition {
  const p = s.phase;
  if (action === "resume") {
    if (p.kind !== "paused")
      return {
        ...stay({ ...s, pendingControl: s.pendingControl?.action === "pause" ? null : s.pendingControl }),
      };
    const next: RolloutState = { ...s, phase: { kind: "before-step", step: p.step } };
    return {
      state: next,
      effects: [emit({ kind: "rollout-resumed", by, step: p.step }), { kind: "read-cluster", afterMs: 0 }],
    };
  }
  if (p.kind === "restarting") {
    // The runner feeds a control in `restarting` only instead of sending the restart (a pause or abort that arrived
    // at the last moment): the worker was not touched, so the step goes back to pending and the control applies now.
    const step = stepAt(s, p.step);
    const reverted = updateStep(s, p.step, {
      status: "pending",
      attempts: Math.max(0, (step?.attempts ?? 1) - 1),
      restartIssuedAt: null,
    });
    const back: RolloutState = { ...reverted, phase: { kind: "before-step", step: p.step } };
    if (action === "abort") return finish(back, now, "aborted", `aborted by ${by} before step ${p.step}`);
    if (action === "pause") return pauseAt(back, p.step, by, now);
    return stay(s);
  }
  if (action === "abort") {
    if (p.kind === "waiting-back" || p.kind === "verifying-restart")
      return stay({ ...s, pendingControl: { action, by, at: now } });
    if (p.kind === "settling") {
      const step = stepAt(s, p.step);
      return finish(
        s,
        now,
        "aborted",
        `aborted by ${by} while ${step?.worker ?? "a worker"} was settling (it is back; the gate had not passed: ${(step?.gate ?? []).map((r) => r.message).join("; ") || "no reason recorded"})`,
      );
    }
    return finish(s, now, "aborted", `aborted by ${by}`);
  }
  if (p.kind === "before-step") return pauseAt(s, p.step, by, now);
  if (p.kind === "paused") return stay(s);
  return stay({ ...s, pendingControl: { action, by, at: now } });
}

function onTakeover(s: RolloutState, owner: string, now: number): Transition {
  const p = s.phase;
  let next = s;
  if (p.kind === "restarting") {
    next = {
      ...s,
      phase: { kind: "verifying-restart", step: p.step, since: now, seenDown: false, baseline: p.baseline },
    };
  }
  return { state: next, effects: [emit({ kind: "rollout-taken-over", owner }), nextAction(next)] };
}

function onDecision(
  s: RolloutState,
  approvalId: string,
  decision: Decision,
  by: string,
  now: number,
): Transition {
  const p = s.phase;
  if (
    p.kind !== "awaiting-approval" ||
    p.approval.id !== approvalId ||
    !p.approval.options.includes(decision)
  )
    return stay(s);
  const record = { id: approvalId, kind: p.approval.kind, step: p.approval.step, decision, by, at: now };
  let next: RolloutState = { ...s, approvals: [...s.approvals, record] };
  const decided = emit({ kind: "approval-decided", approval: record });
  if (decision === "abort")
    return finish(next, now, "aborted", `aborted by ${by} at the ${p.approval.kind} prompt`, [decided]);
  const resume = p.resume;
  switch (resume.kind) {
    case "before-step": {
      const grantStep =
        resume.approved === "eager-window"
          ? (eagerWindowStart(s, stepAt(s, resume.step)?.worker ?? "") ?? resume.step)
          : resume.step;
      next = {
        ...next,
        granted: [...next.granted, { kind: resume.approved, step: grantStep }],
        phase: { kind: "before-step", step: resume.step },
      };
      return { state: next, effects: [decided, { kind: "read-cluster", afterMs: 0 }] };
    }
    case "retry-restart": {
      next = updateStep(next, resume.step, { status: "pending" });
      next = { ...next, phase: { kind: "before-step", step: resume.step, retryBaseline: resume.baseline } };
      return { state: next, effects: [decided, { kind: "read-cluster", afterMs: 0 }] };
    }
    case "settling": {
      if (decision === "continue") return continueAnyway(next, resume.step, by, now, decided);
      const step = stepAt(next, resume.step);
      const waitMore = s.settings.gatePolicy.expectedSettleMs;
      const phase: Phase =
        step && step.backAt === null
          ? {
              kind: "waiting-back",
              step: resume.step,
              since: now,
              seenDown: false,
              baseline: resume.baseline,
            }
          : {
              kind: "settling",
              step: resume.step,
              baseline: resume.baseline,
              polls: [],
              askSlowAfter: now + waitMore,
            };
      next = { ...next, phase };
      return {
        state: next,
        effects: [decided, { kind: "read-cluster", afterMs: s.settings.pollIntervalMs }],
      };
    }
    case "step-done":
      return continueAnyway(next, resume.step, by, now, decided);
  }
}

function continueAnyway(
  s: RolloutState,
  stepNo: number,
  by: string,
  now: number,
  decided: RolloutEffect,
): Transition {
  const next = updateStep(s, stepNo, {
    status: "continued",
    note: `continued by ${by} without a passed gate`,
    settledAt: now,
  });
  return {
    state: { ...next, phase: { kind: "before-step", step: stepNo + 1 } },
    effects: [decided, { kind: "read-cluster", afterMs: 0 }],
  };
}
