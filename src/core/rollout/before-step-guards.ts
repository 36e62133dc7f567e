import { captureBaseline } from "../settle/capture-baseline.js";
import { tasksNotRunningReason } from "../settle/evaluate-settle.js";
import type { ClusterSnapshot, WorkerSnapshot } from "../snapshot.js";
import { versionMatches } from "../version.js";
import { tasksNotSettledAtEnd } from "./closing-check.js";
import { leaderNotAnswering } from "./exactly-once-leader.js";
import { done, type PhaseResult, reenter } from "./phase-result.js";
import type { SkipReason } from "./rollout-reasons.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import {
  bringLeaderForward,
  freezeChanges,
  freezeOf,
  keepLeaderLast,
  startedSince,
  stepAt,
  updateStep,
} from "./step-helpers.js";
import {
  ask,
  emit,
  finish,
  isGranted,
  pauseAt,
  restartedSince,
  stepChangesVersion,
  targetVersionFor,
} from "./transitions.js";
import { eagerWindowStart } from "./windows.js";

/**
 * The guards that run before a step's restart, each one concern with a name. A guard lets the step go on (maybe
 * with an updated state) or stops here: it finishes, pauses, asks a person, or re-enters the checks for another
 * step. `before-step.ts` runs them in the order of its lists; the first that stops decides.
 */

/** What the guards look at: the rollout so far, the step to restart next, this read, the time. */
export interface BeforeStep {
  readonly state: RolloutState;
  readonly stepNo: number;
  readonly snapshot: ClusterSnapshot;
  readonly now: number;
}

export type GuardOutcome =
  | { readonly kind: "pass"; readonly state: RolloutState }
  | { readonly kind: "stop"; readonly result: PhaseResult };

/** A guard about the rollout, before its next step is looked at (there may be none left). */
export type RolloutGuard = (b: BeforeStep) => GuardOutcome;
/** A guard about the next step and its worker. */
export type StepGuard = (b: BeforeStep, step: StepRecord) => GuardOutcome;

const pass = (state: RolloutState): GuardOutcome => ({ kind: "pass", state });
const stop = (result: PhaseResult): GuardOutcome => ({ kind: "stop", result });

/** A pause or abort asked while the last step was in flight applies now, before the next restart. */
export function applyPendingControl(b: BeforeStep): GuardOutcome {
  const control = b.state.pendingControl;
  if (!control) return pass(b.state);
  const cleared: RolloutState = { ...b.state, pendingControl: null };
  if (control.action === "abort")
    return stop(
      done(
        finish(cleared, b.now, "aborted", { kind: "aborted-before-step", by: control.by, step: b.stepNo }),
      ),
    );
  return stop(done(pauseAt(cleared, b.stepNo, control.by, b.now)));
}

/**
 * No step left: succeeded only when every step settled (or was already on the target). A step continued past its
 * gate, or skipped without its worker back, by a person is reported as such, so the result tells the truth about the
 * cluster.
 */
export function finishAfterLastStep(b: BeforeStep): GuardOutcome {
  const s = b.state;
  if (stepAt(s, b.stepNo)) return pass(s);
  const continued = s.steps.filter((x) => x.status === "continued").map((x) => x.worker);
  const notBack = s.steps.filter((x) => x.note?.kind === "not-back").map((x) => x.worker);
  if (s.canary?.verdict === "rolled-back") {
    const back = s.steps.find((x) => x.toVersion !== undefined && x.worker === s.canary?.worker);
    return stop(
      done(
        finish(s, b.now, "failed", {
          kind: "canary-rolled-back",
          worker: s.canary.worker,
          from: back?.toVersion ?? "",
          findings: s.canary.findings,
          rolledBack: s.steps.filter((x) => x.toVersion !== undefined).map((x) => x.worker),
          notRestarted: s.steps.filter((x) => x.note?.kind === "after-canary-rollback").map((x) => x.worker),
        }),
      ),
    );
  }
  if (notBack.length > 0)
    return stop(done(finish(s, b.now, "failed", { kind: "not-brought-back", notBack, continued })));
  if (continued.length > 0)
    return stop(done(finish(s, b.now, "failed", { kind: "continued-unsettled", workers: continued })));
  return stop(waitForLastTasks(b) ?? done(finish(s, b.now, "succeeded", { kind: "all-settled" })));
}

/**
 * With no step left, succeeded needs every task running on a live worker in this read (`tasksNotSettledAtEnd`): until
 * then the rollout re-reads at the poll interval and says what it waits for, under the last step's name; after
 * `gate.failAfterMs` it fails with the tasks. Null when nothing is left to wait for.
 */
function waitForLastTasks(b: BeforeStep): PhaseResult | null {
  const s = b.state;
  const unsettled = tasksNotSettledAtEnd(b.snapshot);
  if (unsettled.length === 0 || s.phase.kind !== "before-step") return null;
  const since = s.phase.closingSince ?? b.now;
  const waitedMs = b.now - since;
  if (waitedMs >= s.settings.gatePolicy.failAfterMs)
    return done(finish(s, b.now, "failed", { kind: "unsettled-at-end", tasks: unsettled, waitedMs }));
  const last = s.steps[s.steps.length - 1];
  const waiting = { ...s, phase: { ...s.phase, closingSince: since } };
  return done({
    state: waiting,
    effects: [
      ...(last
        ? [
            emit({
              kind: "gate-waiting",
              step: last.step,
              worker: last.worker,
              reasons: [tasksNotRunningReason(unsettled)],
            }),
          ]
        : []),
      { kind: "read-cluster", afterMs: s.settings.pollIntervalMs },
    ],
  });
}

/**
 * Config freeze: a connector's config or task count changed since the start is asked about. The grant covers the
 * change it was asked about: consumed here, so a later change is asked about again.
 */
export function askAboutConfigChanges(b: BeforeStep, _step: StepRecord): GuardOutcome {
  const s = b.state;
  if (!s.freeze || b.snapshot.connectors === null) return pass(s);
  const changes = freezeChanges(s.freeze, b.snapshot);
  if (changes.length === 0) return pass(s);
  if (isGranted(s, "config-changed", b.stepNo))
    return pass({
      ...s,
      freeze: freezeOf(b.snapshot),
      granted: s.granted.filter((g) => !(g.kind === "config-changed" && g.step === b.stepNo)),
    });
  return stop(
    done(
      ask(
        s,
        b.now,
        {
          step: b.stepNo,
          facts: { kind: "config-changed", cluster: s.cluster, changes },
          options: ["continue", "abort"],
        },
        { kind: "before-step", step: b.stepNo, approved: "config-changed" },
      ),
    ),
  );
}

/**
 * Facts over memory: whether the worker still needs its step comes from the cluster (its version for an upgrade, its
 * process start time for a plain restart), so a lost or stale checkpoint never restarts a worker twice. The worker
 * when it is on the target, else null.
 */
function workerOnTarget(b: BeforeStep, step: StepRecord): WorkerSnapshot | null {
  const s = b.state;
  const worker = b.snapshot.workers.find((w) => w.name === step.worker);
  if (worker?.reachable !== true) return null;
  const onTarget = stepChangesVersion(s, step)
    ? worker.version !== null && versionMatches(worker.version, targetVersionFor(s, step))
    : startedSince(worker, step.attempts > 0 ? step.restartIssuedAt : restartedSince(s));
  return onTarget ? worker : null;
}

/**
 * A retried step whose earlier attempt did restart the worker (the executor failed or timed out after acting): it is
 * not skipped but gated as back, against the baseline from before the first attempt.
 */
export function gateRetryThatActed(b: BeforeStep, step: StepRecord): GuardOutcome {
  const s = b.state;
  if (step.status !== "pending" || step.attempts === 0 || !workerOnTarget(b, step)) return pass(s);
  const retryBaseline = s.phase.kind === "before-step" ? (s.phase.retryBaseline ?? null) : null;
  const captured =
    retryBaseline ??
    (() => {
      const c = captureBaseline(b.snapshot, {
        step: b.stepNo,
        worker: step.worker,
        targetVersion: targetVersionFor(s, step),
        stopIssuedAt: step.restartIssuedAt ?? b.now,
        delayMs: s.settings.delayMs,
        sessionTimeoutMs: s.settings.sessionTimeoutMs,
        isLeader: step.isLeader,
      });
      return c.kind === "captured" ? c.baseline : null;
    })();
  if (!captured) return pass(s);
  return stop(reenter({ kind: "worker-back", step: step.step, baseline: captured }, s));
}

/** Already on the target (resumed after a takeover, or upgraded by someone else): skipped, the next step checked. */
export function skipWorkerOnTarget(b: BeforeStep, step: StepRecord): GuardOutcome {
  const s = b.state;
  const worker = step.status === "pending" && step.attempts === 0 ? workerOnTarget(b, step) : null;
  if (!worker) return pass(s);
  // After a write-back of a lost record, the rollout's own lost part may have done this restart: said so.
  const startedAt = worker.metrics?.startTimeMs ?? 0;
  const lost = restartedWhileLost(s, s.target.kind === "upgrade" ? null : startedAt)
    ? { afterRecordLost: true as const }
    : {};
  const why: SkipReason =
    s.target.kind === "upgrade"
      ? { kind: "on-target", version: worker.version ?? s.target.version, ...lost }
      : { kind: "restarted-since-start", startedAt, ...lost };
  const skipped = updateStep(s, b.stepNo, { status: "skipped", note: why });
  return stop(
    reenter({ kind: "before-step" }, { ...skipped, phase: { kind: "before-step", step: b.stepNo + 1 } }, [
      emit({ kind: "step-skipped", step: b.stepNo, worker: step.worker, reason: why }),
    ]),
  );
}

/**
 * The worker may have been restarted by this rollout while its record was lost: the record was written back, and the
 * worker's process started after the checkpoint written back was taken (less a minute for the clocks of the bot and
 * the workers; with no start time, as for a version found on the target, it may have).
 */
function restartedWhileLost(s: RolloutState, startedAt: number | null): boolean {
  const restored = s.recordRestored;
  if (restored === undefined) return false;
  if (startedAt === null || restored.checkpointAt === null) return true;
  return startedAt >= restored.checkpointAt - CLOCK_MARGIN_MS;
}

/** How far the workers' clocks may be from the bot's, for a start time compared with a checkpoint's time. */
const CLOCK_MARGIN_MS = 60_000;

/**
 * The group leader is restarted last: a step whose worker leads now moves to the end, and the new step is checked.
 * Pace `rotate` turns it round: the worker that leads now, if still to restart, is brought forward to this step.
 */
export function restartLeaderLast(b: BeforeStep, step: StepRecord): GuardOutcome {
  // A rollback keeps the order it undoes, newest move first, whoever leads.
  if (b.state.target.rollback) return pass(b.state);
  if (b.state.settings.planPolicy.pace === "rotate") return restartLeaderNow(b);
  const reordered = keepLeaderLast(b.state, b.stepNo, b.snapshot);
  if (!reordered) return pass(b.state);
  return stop(
    reenter({ kind: "before-step" }, reordered, [
      emit({
        kind: "step-reordered",
        step: reordered.steps.length,
        worker: step.worker,
        reason: { kind: "leader-now" },
      }),
    ]),
  );
}

function restartLeaderNow(b: BeforeStep): GuardOutcome {
  const reordered = bringLeaderForward(b.state, b.stepNo, b.snapshot);
  const leading = reordered === null ? undefined : stepAt(reordered, b.stepNo);
  if (!reordered || !leading) return pass(b.state);
  return stop(
    reenter({ kind: "before-step" }, reordered, [
      emit({
        kind: "step-reordered",
        step: b.stepNo,
        worker: leading.worker,
        reason: { kind: "leader-first" },
      }),
    ]),
  );
}

/**
 * An exactly-once cluster's leader must answer before a step: the step waits (re-reads at the poll interval) with
 * the reason, and goes on once it answers (a crashed leader is replaced after the session timeout).
 */
export function waitForExactlyOnceLeader(b: BeforeStep, step: StepRecord): GuardOutcome {
  const reason = leaderNotAnswering(b.snapshot, b.stepNo);
  if (reason === null) return pass(b.state);
  return stop(
    done({
      state: b.state,
      effects: [
        emit({ kind: "gate-waiting", step: b.stepNo, worker: step.worker, reasons: [reason] }),
        { kind: "read-cluster", afterMs: b.state.settings.pollIntervalMs },
      ],
    }),
  );
}

/** Entering an eager window (every rebalance stop-the-world) is approved once, when the window opens. */
export function askBeforeEagerWindow(b: BeforeStep, step: StepRecord): GuardOutcome {
  const s = b.state;
  const windowStart = eagerWindowStart(s, step);
  if (windowStart === null || isGranted(s, "eager-window", windowStart)) return pass(s);
  return stop(
    done(
      ask(
        s,
        b.now,
        {
          step: b.stepNo,
          facts: { kind: "eager-window", cluster: s.cluster, worker: step.worker },
          options: ["approve", "abort"],
        },
        { kind: "before-step", step: b.stepNo, approved: "eager-window" },
      ),
    ),
  );
}
