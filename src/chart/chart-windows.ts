import type { RolloutState, StepRecord } from "../core/rollout/rollout-state.js";
import { sameWindow, type WindowKey } from "../core/rollout/window-key.js";
import { windowKeyOf } from "../core/rollout/windows.js";
import type { ChartWindow } from "./chart-types.js";

/**
 * The windows the rollout went through, as they ran (a deadline may cut a planned window short): runs of consecutive
 * restarted steps in the same window, each run ending at the first step not crossed inside it (the one whose gate
 * closed the window). A window spans its first restart to its closing step's settle, or to `spanMs` while open.
 */
export function chartWindows(state: RolloutState, spanMs: number): ChartWindow[] {
  const windows: ChartWindow[] = [];
  let run: { key: WindowKey; steps: StepRecord[] } | null = null;
  const close = () => {
    if (run !== null) windows.push(windowOf(state, run.key, run.steps, spanMs));
    run = null;
  };
  for (const step of state.steps) {
    if (step.restartIssuedAt === null) {
      close();
      continue;
    }
    const key = windowKeyOf(state, step);
    if (key === null) {
      close();
      continue;
    }
    if (run === null || !sameWindow(run.key, key)) {
      close();
      run = { key, steps: [] };
    }
    run.steps.push(step);
    if (step.note?.kind !== "crossed-in-window") close();
  }
  close();
  return windows;
}

function windowOf(
  state: RolloutState,
  key: WindowKey,
  steps: readonly StepRecord[],
  spanMs: number,
): ChartWindow {
  const first = steps[0]?.restartIssuedAt ?? state.startedAt;
  const closedAt = steps.at(-1)?.settledAt ?? null;
  return {
    kind: key.kind,
    steps: steps.map((s) => s.step),
    from: Math.max(0, first - state.startedAt),
    to: closedAt === null ? spanMs : Math.max(0, closedAt - state.startedAt),
  };
}
