import { formatDuration } from "../core/format-duration.js";
import type { StepExactlyOnce } from "../core/rollout/rollout-state.js";

/**
 * "worker-2: 2 exactly-once tasks (conn-01/1, conn-02/0), each committed a transaction 12s after the restart; no
 * fencing failure" — a step's exactly-once line; null when the step had none. Plain text, shared by Slack and the
 * terminal.
 */
export function stepExactlyOnceText(worker: string, eos: StepExactlyOnce | undefined | null): string | null {
  if (eos === undefined || eos === null || eos.tasks.length === 0) return null;
  const shown = eos.tasks.length <= 4 ? eos.tasks.join(", ") : `${eos.tasks.slice(0, 4).join(", ")}, …`;
  const tasks = eos.tasks.length === 1 ? "1 exactly-once task" : `${eos.tasks.length} exactly-once tasks`;
  const commit =
    eos.firstCommitMs === null
      ? "no committed transaction seen since the restart"
      : `${eos.tasks.length === 1 ? "it" : "each"} committed a transaction ${formatDuration(eos.firstCommitMs)} after the restart`;
  const fencing =
    eos.fencingFailures === 0
      ? "no fencing failure"
      : `${eos.fencingFailures} fencing failure${eos.fencingFailures === 1 ? "" : "s"} (task FAILED, restart asked)`;
  return `${worker}: ${tasks} (${shown}), ${commit}; ${fencing}`;
}
