import type { Decision, PendingApproval } from "./approval-types.js";
import { onCanaryDecision } from "./canary.js";
import { watchBack } from "./poll-cadence.js";
import type { RolloutEffect, RolloutInput, Transition } from "./rollout-io.js";
import type { Phase, ResumePoint, RolloutState, StepStatus } from "./rollout-state.js";
import { stepAt, updateStep } from "./step-helpers.js";
import { ask, emit, finish, nextAction, pauseAt, stay } from "./transitions.js";
import { eagerWindowStart } from "./windows.js";

/**
 * The inputs that are not a read of the cluster: the executor's answer to a restart, a pause, resume or abort, a
 * takeover by another replica, a person's decision at a prompt, and the run's time limit. None reads the cluster, so none re-enters a
 * phase: each answers its transition at once.
 */

type RestartResult = Extract<RolloutInput, { kind: "restart-accepted" | "restart-failed" }>;

/** The executor accepted the restart (the worker is watched until back) or failed it (a person decides). */
export function onRestartResult(s: RolloutState, input: RestartResult): Transition {
  const phase = s.phase;
  if (phase.kind !== "restarting" || phase.step !== input.step) return stay(s);
  const step = stepAt(s, phase.step);
  if (!step) return stay(s);
  if (input.kind === "restart-accepted") {
    const waiting = updateStep(s, step.step, { status: "waiting-back", restartDetail: input.detail });
    const next: RolloutState = {
      ...waiting,
      phase: {
        kind: "waiting-back",
        step: step.step,
        since: input.now,
        seenDown: false,
        baseline: phase.baseline,
      },
    };
    return {
      state: next,
      effects: [
        emit({ kind: "restart-issued", step: step.step, worker: step.worker, detail: input.detail }),
        watchBack(next, step),
      ],
    };
  }
  return ask(
    updateStep(s, step.step, { status: "failed", note: { kind: "restart-failed", error: input.message } }),
    input.now,
    {
      step: step.step,
      facts: {
        kind: "restart-failed",
        worker: step.worker,
        error: input.message,
        mayHaveRun: input.mayHaveRun,
      },
      options: ["approve", "abort"],
    },
    { kind: "retry-restart", step: step.step, baseline: phase.baseline },
  );
}

export function onControl(
  s: RolloutState,
  action: "pause" | "resume" | "abort",
  by: string,
  now: number,
): Transition {
  const p = s.phase;
  if (action === "resume") {
    if (p.kind !== "paused")
      return stay({ ...s, pendingControl: s.pendingControl?.action === "pause" ? null : s.pendingControl });
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
    if (action === "abort")
      return finish(back, now, "aborted", { kind: "aborted-before-step", by, step: p.step });
    return pauseAt(back, p.step, by, now);
  }
  if (action === "abort") {
    if (p.kind === "waiting-back" || p.kind === "verifying-restart")
      return stay({ ...s, pendingControl: { action, by, at: now } });
    if (p.kind === "settling") {
      const step = stepAt(s, p.step);
      return finish(s, now, "aborted", {
        kind: "aborted-while-settling",
        by,
        worker: step?.worker ?? null,
        gate: step?.gate ?? [],
      });
    }
    return finish(s, now, "aborted", { kind: "aborted", by });
  }
  if (p.kind === "before-step") return pauseAt(s, p.step, by, now);
  if (p.kind === "paused") return stay(s);
  return stay({ ...s, pendingControl: { action, by, at: now } });
}

/** Another replica took the job over: a restart in flight must be confirmed from the cluster before anything else. */
export function onTakeover(s: RolloutState, owner: string, now: number): Transition {
  const p = s.phase;
  const next: RolloutState =
    p.kind === "restarting"
      ? {
          ...s,
          phase: {
            kind: "verifying-restart",
            step: p.step,
            since: now,
            seenDown: false,
            baseline: p.baseline,
          },
        }
      : s;
  return { state: next, effects: [emit({ kind: "rollout-taken-over", owner }), nextAction(next)] };
}

/** A decision at the pending prompt (others are ignored): abort finishes, the others resume where it was asked. */
export function onDecision(
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
  const decidedState: RolloutState = { ...s, approvals: [...s.approvals, record] };
  const decided = emit({ kind: "approval-decided", approval: record });
  if (decision === "abort")
    return finish(
      decidedState,
      now,
      "aborted",
      { kind: "aborted-at-prompt", by, approval: p.approval.kind },
      [decided],
    );
  const resume = p.resume;
  const readNow = (next: RolloutState): Transition => ({
    state: next,
    effects: [decided, { kind: "read-cluster", afterMs: 0 }],
  });
  switch (resume.kind) {
    case "planning": {
      // "continue" at a recently-started prompt: those workers count as restarted (since the earliest of them).
      const facts = p.approval.facts;
      const since =
        decision === "continue" && facts.kind === "recently-started"
          ? Math.min(...facts.workers.map((w) => w.startedAt))
          : undefined;
      return readNow({
        ...decidedState,
        ...(since === undefined ? {} : { target: { ...decidedState.target, since } }),
        phase: { kind: "planning" },
      });
    }
    case "before-step": {
      // An eager window is approved once for the whole window: the grant is recorded at its first step.
      const grantStep =
        resume.approved === "eager-window"
          ? ((() => {
              const asked = stepAt(s, resume.step);
              return asked ? eagerWindowStart(s, asked) : null;
            })() ?? resume.step)
          : resume.step;
      return readNow({
        ...decidedState,
        granted: [...decidedState.granted, { kind: resume.approved, step: grantStep }],
        phase: { kind: "before-step", step: resume.step },
      });
    }
    case "retry-restart": {
      // An attempt the executor refused before acting (it could not have run) restarted nothing: without its time,
      // a worker that some other cause restarted meanwhile (a crash) is not taken for its restart, and is restarted.
      // The attempt still counts, so the next one has a step id of its own.
      const facts = p.approval.facts;
      const acted = facts.kind !== "restart-failed" || facts.mayHaveRun;
      const pending = updateStep(decidedState, resume.step, {
        status: "pending",
        ...(acted ? {} : { restartIssuedAt: null }),
      });
      return readNow({
        ...pending,
        phase: { kind: "before-step", step: resume.step, retryBaseline: resume.baseline },
      });
    }
    case "settling": {
      if (decision === "continue") return continueAnyway(decidedState, resume.step, by, now, decided);
      if (decision === "restart-tasks" && p.approval.facts.kind === "task-restart")
        return {
          state: {
            ...decidedState,
            phase: {
              kind: "settling",
              step: resume.step,
              baseline: resume.baseline,
              stable: null,
              askSlowAfter: now + s.settings.gatePolicy.expectedSettleMs,
            },
          },
          effects: [decided, { kind: "restart-tasks", tasks: p.approval.facts.tasks.map((t) => t.task) }],
        };
      const step = stepAt(decidedState, resume.step);
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
              stable: null,
              askSlowAfter: now + s.settings.gatePolicy.expectedSettleMs,
            };
      return {
        state: { ...decidedState, phase },
        effects: [decided, { kind: "read-cluster", afterMs: s.settings.pollIntervalMs }],
      };
    }
    case "step-done":
      return continueAnyway(decidedState, resume.step, by, now, decided);
    case "worker-return":
      return onWorkerReturnDecision(decidedState, p.approval, resume, decision, by, now, decided);
    case "canary":
      return onCanaryDecision(decidedState, resume.step, decision, decided);
  }
}

/**
 * A worker not back within `workerReturnMs`: `restart-again` sends its restart again through the executor (the checks
 * before a step run first: a worker that came back meanwhile is gated, not restarted twice), `continue-without` skips
 * the step with the reason and goes on with the next worker, `keep-waiting` waits another `workerReturnMs`.
 */
function onWorkerReturnDecision(
  s: RolloutState,
  approval: PendingApproval,
  resume: Extract<ResumePoint, { kind: "worker-return" }>,
  decision: Decision,
  by: string,
  now: number,
  decided: RolloutEffect,
): Transition {
  const step = stepAt(s, resume.step);
  if (!step) return stay(s);
  if (decision === "restart-again")
    return {
      state: {
        ...updateStep(s, step.step, { status: "pending" }),
        phase: { kind: "before-step", step: step.step, retryBaseline: resume.baseline },
      },
      effects: [decided, { kind: "read-cluster", afterMs: 0 }],
    };
  if (decision === "continue-without") {
    const waitedMs =
      approval.facts.kind === "worker-not-back" ? approval.facts.waitedMs : now - approval.askedAt;
    const reason = { kind: "not-back", by, waitedMs } as const;
    return {
      state: {
        ...updateStep(s, step.step, { status: "skipped", note: reason }),
        phase: { kind: "before-step", step: step.step + 1 },
      },
      effects: [
        decided,
        emit({ kind: "step-skipped", step: step.step, worker: step.worker, reason }),
        { kind: "read-cluster", afterMs: 0 },
      ],
    };
  }
  return {
    state: {
      ...s,
      phase: {
        kind: "waiting-back",
        step: step.step,
        since: now,
        seenDown: false,
        baseline: resume.baseline,
      },
    },
    effects: [decided, { kind: "read-cluster", afterMs: s.settings.pollIntervalMs }],
  };
}

/**
 * The run's time limit passed: it finishes aborted now, saying which step was in flight and which workers were never
 * restarted. Fed instead of a restart (`restarting`), the restart was not sent: the step goes back to pending.
 */
export function onTimeLimit(s: RolloutState, limitMs: number, now: number): Transition {
  const p = s.phase;
  const state =
    p.kind === "restarting"
      ? updateStep(s, p.step, {
          status: "pending",
          attempts: Math.max(0, (stepAt(s, p.step)?.attempts ?? 1) - 1),
          restartIssuedAt: null,
        })
      : s;
  const inFlight = state.steps.flatMap((x) => {
    const stage = IN_FLIGHT_STAGE[x.status];
    return stage === undefined ? [] : [{ worker: x.worker, stage }];
  })[0];
  return finish(state, now, "aborted", {
    kind: "timed-out",
    limitMs,
    inFlight: inFlight ?? null,
    notRestarted: state.steps.filter((x) => x.status === "pending").map((x) => x.worker),
  });
}

/** Where a step stood when the time limit passed, by its status (absent: not in flight). */
const IN_FLIGHT_STAGE: Partial<Record<StepStatus, "not-back" | "settling" | "restart-failed">> = {
  "restart-issued": "not-back",
  restarting: "not-back",
  "waiting-back": "not-back",
  settling: "settling",
  failed: "restart-failed",
};

function continueAnyway(
  s: RolloutState,
  stepNo: number,
  by: string,
  now: number,
  decided: RolloutEffect,
): Transition {
  const next = updateStep(s, stepNo, {
    status: "continued",
    note: { kind: "continued", by },
    settledAt: now,
  });
  return {
    state: { ...next, phase: { kind: "before-step", step: stepNo + 1 } },
    effects: [decided, { kind: "read-cluster", afterMs: 0 }],
  };
}
