import { growingLag } from "../settle/assess-flow.js";
import { exactlyOnceTasks } from "../settle/check-exactly-once.js";
import { evaluateSettle } from "../settle/evaluate-settle.js";
import type { GateReason } from "../settle/settle-types.js";
import { extendStableRun } from "../settle/stable-run.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { done, type PhaseResult, toNextStep } from "./phase-result.js";
import { settlePollMs } from "./poll-cadence.js";
import type { RolloutEffect } from "./rollout-io.js";
import type { Phase, RolloutState } from "./rollout-state.js";
import { stepAt, updateStep } from "./step-helpers.js";
import { foldExactlyOnce } from "./track-exactly-once.js";
import { ask, emit, stay } from "./transitions.js";

/**
 * Settling: the gate after a step (or at the end of a window), on each read. Settled: on to the next step. Failed:
 * a person decides whether to continue. Waiting: the reasons are reported when they change, a person is asked once
 * the gate is slow, and the next read comes at the gate's cadence.
 */
export function onSettling(s: RolloutState, snapshot: ClusterSnapshot, now: number): PhaseResult {
  const phase = s.phase;
  if (phase.kind !== "settling") return done(stay(s));
  const step = stepAt(s, phase.step);
  if (!step) return done(stay(s));
  const stable = extendStableRun(phase.stable, snapshot, phase.baseline.stopIssuedAt);
  const verdict = evaluateSettle({
    baseline: phase.baseline,
    polls: [snapshot],
    stablePolls: stable.count,
    policy: s.settings.gatePolicy,
    now,
    flow: s.flow,
  });
  const settlingPhase: Phase = { ...phase, stable };
  // Exactly-once tasks FAILED during the step (a start whose fencing failed): restarting them is offered first.
  const eos = verdict.kind === "failed" ? exactlyOnceTasks(phase.baseline, snapshot) : new Set<string>();
  const fenced =
    verdict.kind === "failed"
      ? verdict.reasons.flatMap((r) =>
          r.code === "task-failed" && eos.has(r.task)
            ? [{ task: r.task, workerId: workerOf(snapshot, r.task), trace: r.trace?.split("\n")[0] ?? null }]
            : [],
        )
      : [];
  const exactlyOnce = foldExactlyOnce(step, phase.baseline, snapshot, s.flow, now, fenced.length);
  const eosPatch = exactlyOnce === undefined ? {} : { exactlyOnce };
  if (verdict.kind === "settled") {
    const settleMs = now - (step.backAt ?? now);
    const flow = phase.baseline.flow;
    const settled = updateStep(s, step.step, {
      status: "settled",
      settledAt: now,
      gate: [],
      measurements: { ...step.measurements, settleMs },
      ...eosPatch,
      dataFlow:
        step.dataFlow && flow
          ? { ...step.dataFlow, lag: growingLag(flow, s.flow, step.dataFlow.peakLag).slice(0, 5) }
          : step.dataFlow,
    });
    const after = stepAt(settled, step.step) ?? step;
    return toNextStep(settled, step.step, [
      emit({
        kind: "step-settled",
        step: step.step,
        worker: step.worker,
        measurements: after.measurements,
        dataFlow: after.dataFlow,
        ...(after.exactlyOnce === undefined ? {} : { exactlyOnce: after.exactlyOnce }),
      }),
    ]);
  }
  const next = updateStep({ ...s, phase: settlingPhase }, step.step, { gate: verdict.reasons, ...eosPatch });
  if (fenced.length > 0)
    return done(
      ask(
        next,
        now,
        {
          step: step.step,
          facts: { kind: "task-restart", worker: step.worker, tasks: fenced, reasons: verdict.reasons },
          options: ["restart-tasks", "continue", "abort"],
        },
        { kind: "settling", step: step.step, baseline: phase.baseline },
      ),
    );
  if (verdict.kind === "failed")
    return done(
      ask(
        next,
        now,
        {
          step: step.step,
          facts: { kind: "gate-failed", worker: step.worker, reasons: verdict.reasons },
          options: ["continue", "abort"],
        },
        { kind: "step-done", step: step.step },
      ),
    );
  const effects: RolloutEffect[] = [];
  if (!sameReasons(step.gate, verdict.reasons))
    effects.push(
      emit({ kind: "gate-waiting", step: step.step, worker: step.worker, reasons: verdict.reasons }),
    );
  // A stall asks at once: the tasks are RUNNING and moving nothing, which waiting longer rarely mends.
  const slow = verdict.reasons.some((r) => r.code === "gate-slow" || r.code === "data-stalled");
  if (slow && (phase.askSlowAfter === null || now >= phase.askSlowAfter))
    return done(
      ask(
        next,
        now,
        {
          step: step.step,
          facts: {
            kind: "gate-slow",
            worker: step.worker,
            elapsedMs: now - (step.restartIssuedAt ?? now),
            reasons: verdict.reasons,
          },
          options: ["keep-waiting", "continue", "abort"],
        },
        { kind: "settling", step: step.step, baseline: phase.baseline },
        effects,
      ),
    );
  return done({
    state: next,
    effects: [...effects, { kind: "read-cluster", afterMs: settlePollMs(s, step, verdict.reasons, now) }],
  });
}

function workerOf(snapshot: ClusterSnapshot, task: string): string | null {
  const slash = task.lastIndexOf("/");
  const connector = snapshot.connectors?.find((c) => c.name === task.slice(0, slash));
  return connector?.tasks.find((t) => String(t.id) === task.slice(slash + 1))?.workerId ?? null;
}

function sameReasons(a: readonly GateReason[], b: readonly GateReason[]): boolean {
  return a.length === b.length && a.every((r, i) => r.code === b[i]?.code && r.message === b[i]?.message);
}
