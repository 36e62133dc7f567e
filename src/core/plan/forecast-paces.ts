import type { PaceForecast, RolloutPace } from "./plan-types.js";
import type { StepCost } from "./predict-step-cost.js";

export interface PaceForecastInput {
  readonly totalTasks: number;
  /** Members of the group, the workers skipped (already on the target) included. */
  readonly groupSize: number;
  /** Each step's cost in the plan's own pace (pace `window`: followers held until their window's deadline). */
  readonly costs: readonly StepCost[];
  /** The plan's wall in its own pace. */
  readonly wallMs: number;
  /** The largest share of tasks a pace window holds at once (0 without windows). */
  readonly heldShare: number;
  /** Each worker's cost as the leader of its step and as a follower; null when the leader is unknown. */
  readonly rotate: {
    readonly leaderIndex: number;
    readonly costs: readonly { readonly asLeader: StepCost; readonly asFollower: StepCost }[];
  } | null;
  readonly tasksOf: (index: number) => number;
}

/**
 * The chance that each step of a rotation restarts the leader of the moment. The first step is the leader's; when a
 * leader leaves, the broker makes any other member leader (docs/connect-behaviour.md#who-leads-next-measured): one of
 * the m members not restarted yet with chance m / (group − 1), and once a restarted worker leads, every later step is
 * a follower's.
 */
export function rotationLeaderChances(steps: number, groupSize: number): number[] {
  const out: number[] = [];
  let chance = 1;
  for (let j = 0; j < steps; j += 1) {
    out.push(chance);
    const notRestarted = steps - (j + 1);
    chance *= groupSize > 1 ? notRestarted / (groupSize - 1) : 0;
  }
  return out;
}

/**
 * What the plan's pace is expected to cost, from its per-step costs. Peaks: `safe` one worker's tasks at a time;
 * `window` its largest window; `rotate` up to two workers' share, because the returning leader takes tasks from the
 * others while the ones handed out at its stop are still starting (measured on a real cluster: 25–33 % with six
 * workers). `rotate` weighs each step's cost as a leader's and as a follower's by the chance that it restarts the
 * leader; null when the leader is unknown.
 */
export function forecastPace(pace: RolloutPace, input: PaceForecastInput): PaceForecast | null {
  const total = Math.max(1, input.totalTasks);
  const steps = input.costs.length;
  const oneWorker = Math.max(0, ...Array.from({ length: steps }, (_, i) => input.tasksOf(i))) / total;
  if (pace !== "rotate") {
    return {
      pace,
      taskDowntimeMs: input.costs.reduce((acc, c) => acc + c.taskDowntimeMs, 0),
      wallMs: input.wallMs,
      peakShare: pace === "window" ? Math.max(oneWorker, input.heldShare) : oneWorker,
    };
  }
  const rotate = input.rotate;
  if (rotate === null) return null;
  // The plan's rotate order: the leader first, then the followers.
  const chances = rotationLeaderChances(steps, input.groupSize);
  let downtime = 0;
  let wall = 0;
  rotate.costs.forEach((c, j) => {
    const p = chances[j] ?? 0;
    downtime += p * c.asLeader.taskDowntimeMs + (1 - p) * c.asFollower.taskDowntimeMs;
    wall += p * c.asLeader.wallMs + (1 - p) * c.asFollower.wallMs;
  });
  return {
    pace,
    taskDowntimeMs: Math.round(downtime),
    wallMs: Math.round(wall),
    peakShare: Math.min(1, 2 * oneWorker),
    expectedLeaderSteps: chances.reduce((a, b) => a + b, 0),
  };
}

/** The pace with the least expected task downtime (ties: the shorter wall). */
export function recommendPace(forecasts: readonly PaceForecast[]): RolloutPace {
  const best = [...forecasts].sort((a, b) => a.taskDowntimeMs - b.taskDowntimeMs || a.wallMs - b.wallMs)[0];
  return best?.pace ?? "safe";
}
