import { lagPeaks, learnedFlow } from "../settle/assess-flow.js";
import type { BaselineFlow } from "../settle/settle-types.js";
import { type FlowGap, type TaskFlowTrack, trackFlow } from "../settle/track-flow.js";
import type { ClusterSnapshot } from "../snapshot.js";
import { recordTimeline } from "./record-timeline.js";
import type { RolloutState, StepRecord } from "./rollout-state.js";
import { addDelta, stepAt, updateStep } from "./step-helpers.js";
import { trackDisruption } from "./track-disruption.js";

/**
 * What every read of the cluster adds to the rollout, whatever its phase: moves, downtime and rebalances on the step
 * in flight, the data-flow track and the gaps that closed (on the step whose worker the task stopped on), and a
 * point of the timeline.
 */
export function foldRead(s: RolloutState, snapshot: ClusterSnapshot): RolloutState {
  const tracked = trackDisruption(s.track, snapshot);
  const flowed = trackFlow(s.flow, snapshot);
  const flowing = expectedFlowing(s, snapshot.readAt);
  let next: RolloutState = { ...s, track: tracked.track, flow: flowed.track };
  if (snapshot.connectors !== null) {
    const total = snapshot.connectors.reduce((n, c) => n + (c.state === "STOPPED" ? 0 : c.tasks.length), 0);
    const quietMs = 2 * Math.max(s.settings.pollIntervalMs, 500);
    const notFlowing =
      flowing === null
        ? null
        : flowing.filter((t) => !flowsAt(flowed.track.tasks[t], snapshot.readAt, quietMs)).length;
    next = {
      ...next,
      timeline: recordTimeline(s.timeline, {
        at: snapshot.readAt,
        down: tracked.track.down.length,
        notFlowing,
        total,
      }),
    };
  }
  const step = inFlightStep(next);
  if (!step) return next;
  next = updateStep(next, step.step, { measurements: addDelta(step.measurements, tracked.delta) });
  next = withLagPeaks(next, step);
  return flowed.gaps.length === 0 ? next : withGaps(next, step, flowed.gaps, flowing);
}

/** A sink's lag above its baseline's, at its highest during the step in flight. */
function withLagPeaks(s: RolloutState, step: StepRecord): RolloutState {
  const baseline = phaseBaselineFlow(s);
  const flow = stepAt(s, step.step)?.dataFlow;
  if (!baseline || !flow) return s;
  const peaks = lagPeaks(baseline, s.flow, flow.peakLag);
  return peaks === null ? s : updateStep(s, step.step, { dataFlow: { ...flow, peakLag: peaks } });
}

/**
 * A task flows at a read when it runs (a live instance, no open gap) and made progress within the last two polls: two
 * reads moments apart (the runner reads while the executor works) find most counters unchanged without any task
 * having stopped.
 */
function flowsAt(t: TaskFlowTrack | undefined, at: number, quietMs: number): boolean {
  if (t === undefined || t.worker === null || t.gap !== null) return false;
  const last = t.progressAt ?? t.movedAt;
  return last !== null && at - last <= quietMs;
}

/** The tasks expected to move data now: the flowing ones of the step's (or window's) baseline, else as learned. */
function expectedFlowing(s: RolloutState, now: number): readonly string[] | null {
  const baseline = phaseBaselineFlow(s);
  if (baseline) return baseline.flowing;
  return learnedFlow(s.flow, now, s.settings.gatePolicy.flowWindowMs)?.flowing ?? null;
}

function phaseBaselineFlow(s: RolloutState): BaselineFlow | null {
  const p = s.phase;
  if (p.kind === "restarting" || p.kind === "waiting-back" || p.kind === "settling") return p.baseline.flow;
  if (p.kind === "verifying-restart") return p.baseline?.flow ?? null;
  return null;
}

function inFlightStep(s: RolloutState): StepRecord | undefined {
  const p = s.phase;
  const inFlight =
    p.kind === "restarting" ||
    p.kind === "waiting-back" ||
    p.kind === "settling" ||
    p.kind === "verifying-restart";
  return inFlight ? stepAt(s, p.step) : undefined;
}

/**
 * Each closed gap of a task that flowed at the baseline, on the step whose worker the task stopped on (a window's
 * earlier step, say), else on the step in flight; a step without data flow keeps none.
 */
function withGaps(
  s: RolloutState,
  inFlight: StepRecord,
  gaps: readonly FlowGap[],
  flowing: readonly string[] | null,
): RolloutState {
  const expected = new Set(flowing ?? []);
  let next = s;
  for (const gap of gaps) {
    if (!expected.has(gap.task)) continue;
    const owner =
      next.steps
        .filter((x) => x.workerId === gap.worker && x.status !== "pending" && x.step <= inFlight.step)
        .at(-1) ?? stepAt(next, inFlight.step);
    if (!owner?.dataFlow) continue;
    const before = owner.dataFlow.gaps[gap.task] ?? 0;
    next = updateStep(next, owner.step, {
      dataFlow: {
        ...owner.dataFlow,
        gaps: { ...owner.dataFlow.gaps, [gap.task]: Math.max(before, gap.gapMs) },
      },
    });
  }
  return next;
}
