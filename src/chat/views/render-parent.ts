import type { KnownBlock } from "@slack/types";
import type { Plan } from "../../core/plan/plan-types.js";
import { plural } from "../../core/plural.js";
import type { RolloutState } from "../../core/rollout/rollout-state.js";
import { disruptionTotals, stepsDone } from "../../core/rollout/summarize.js";
import { taskSecondsText } from "../../wording/task-time-text.js";
import { context, divider, header, message, section, type ViewMessage } from "./blocks.js";
import { mention, progressBar, utcTime } from "./format.js";
import { escapeMrkdwn } from "./limits.js";
import { reportBlocks } from "./render-final-report.js";
import { currentText, disruptionText, rolloutSubject, stateText } from "./rollout-mrkdwn.js";

/**
 * The thread's parent: a live summary bounded whatever the cluster size (per-step detail lives in the replies).
 * Once finished, it also carries the final report.
 */
export function renderParent(state: RolloutState, now: number): ViewMessage {
  const total = state.steps.length;
  const done = stepsDone(state);
  const current = currentText(state, now);
  const finished = state.phase.kind === "finished";
  const lines = [
    `Requested by ${mention(state.requestedBy)} · started ${utcTime(state.startedAt)}`,
    `*State:* ${stateText(state, !finished)}`,
  ];
  if (total > 0) lines.push(`*Progress:* ${progressBar(done, total)}`);
  if (current !== null) lines.push(`*Now:* ${current}`);
  if (total > 0 && !finished) lines.push(`*So far:* ${disruptionText(disruptionTotals(state))}`);
  if (state.plan !== null) lines.push(`*Plan:* ${planText(state.plan)}`);
  const hint = hintText(state);
  if (hint !== null) lines.push(hint);

  const blocks: KnownBlock[] = [header(`connect-roll · ${rolloutSubject(state)}`), section(lines.join("\n"))];
  if (finished) blocks.push(divider(), ...reportBlocks(state, now));
  blocks.push(
    context(
      `job \`${escapeMrkdwn(state.jobId)}\``,
      `updated ${utcTime(state.updatedAt)}`,
      "step details in the thread",
    ),
  );

  const subject = escapeMrkdwn(rolloutSubject(state));
  const fallback = `connect-roll · ${subject}: ${stateText(state)}${total > 0 ? ` · ${done}/${total}` : ""}${current === null ? "" : ` · ${current}`}`;
  return message(fallback, blocks, "report blocks");
}

/** "pace safe · eager window: steps 1–2 · predicted 0 moves, 10m00s task downtime". */
function planText(plan: Plan): string {
  const eager =
    plan.eagerWindows.length === 0
      ? "no eager window"
      : `${plan.eagerWindows.length === 1 ? "eager window" : "eager windows"}: ${plan.eagerWindows
          .slice(0, 5)
          .map((w) => (w.fromStep === w.toStep ? `step ${w.fromStep}` : `steps ${w.fromStep}–${w.toStep}`))
          .join(
            ", ",
          )}${plan.eagerWindows.length > 5 ? ` +${plan.eagerWindows.length - 5} more` : ""} (stop-the-world rebalances)`;
  const predicted = `predicted ${plural(plan.totals.predictedMoves, "move")}, downtime ${taskSecondsText(plan.totals.predictedTaskDowntimeMs)}`;
  return `pace ${plan.pace} · ${eager} · ${predicted}`;
}

function hintText(state: RolloutState): string | null {
  const cluster = escapeMrkdwn(state.cluster);
  switch (state.phase.kind) {
    case "paused":
      return `_Resume with \`/connect-roll resume ${cluster}\`, or stop with \`/connect-roll abort ${cluster}\`._`;
    case "awaiting-approval":
      return "_The prompt with the buttons is in the thread._";
    default:
      return null;
  }
}
