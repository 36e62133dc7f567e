import { exactlyOnceStepTasks } from "../settle/check-exactly-once.js";
import type { Baseline } from "../settle/settle-types.js";
import type { FlowTrack } from "../settle/track-flow.js";
import type { ClusterSnapshot } from "../snapshot.js";
import type { StepExactlyOnce, StepRecord } from "./rollout-state.js";

/**
 * A step's exactly-once record after one gate poll: the step's exactly-once tasks seen so far, the time from the
 * restart's issue to the first poll on which every one of them had committed a transaction, and the fencing failures
 * (`fenced`: tasks seen FAILED by a fencing error on this poll, asked about). Undefined while there are none.
 */
export function foldExactlyOnce(
  step: StepRecord,
  baseline: Baseline,
  snapshot: ClusterSnapshot,
  flow: FlowTrack,
  now: number,
  fenced: number,
): StepExactlyOnce | undefined {
  const tasks = exactlyOnceStepTasks(baseline, snapshot, flow);
  const prev = step.exactlyOnce;
  if (tasks.length === 0 && prev === undefined && fenced === 0) return undefined;
  const names = [...new Set([...(prev?.tasks ?? []), ...tasks.map((t) => t.task)])].sort();
  const committed = tasks.length > 0 && tasks.every((t) => t.committed) && fenced === 0;
  return {
    tasks: names,
    firstCommitMs:
      prev?.firstCommitMs ?? (committed ? now - (step.restartIssuedAt ?? baseline.stopIssuedAt) : null),
    fencingFailures: (prev?.fencingFailures ?? 0) + fenced,
  };
}
