import type { Scenario, ScenarioId } from "./scenarios.js";

/** One rollout of one strategy on one scenario and seed, as the bench reports it. */
export type StrategyId =
  | "connect-roll"
  | "connect-roll-window"
  | "connect-roll-rotate"
  | "leader-rotation"
  | "leader-rotation-pipelined"
  | "strimzi"
  | "statefulset-tasks-ready"
  | "deployment"
  | "all-at-once";

export interface DowntimeFigures {
  readonly sumMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface RunFigures {
  /** From the first restart to the moment the cluster settled (every task RUNNING, no rebalance pending). */
  readonly wallMs: number;
  /** When the tool itself considered the rollout finished (last worker ready / runner returned). */
  readonly toolDoneMs: number;
  readonly settled: boolean;
  readonly downtime: DowntimeFigures;
  readonly moves: number;
  readonly interruptions: number;
  readonly rebalances: number;
  readonly eagerRebalances: number;
  /** 0–1. */
  readonly peakShare: number;
}

/** The bot's own cost (connect-roll rows only). */
export interface BotCost {
  readonly steps: number;
  /** Reads of the whole cluster. */
  readonly polls: number;
  /** Probes of one restarted worker (one or two calls each). */
  readonly probes?: number;
  readonly httpCalls: number;
  readonly cpuMs: number;
  /** Resident set size after the run, MiB. */
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
}

export interface FollowerStepFigures {
  readonly moves: number;
  readonly interruptions: number;
}

export interface RunResult {
  readonly strategy: StrategyId;
  readonly scenario: ScenarioId;
  readonly seed: number;
  /** null when the strategy could not run (reason in `note`). */
  readonly figures: RunFigures | null;
  readonly note: string | null;
  readonly leader: string | null;
  /** 1-based position of the starting leader in the order the strategy restarted workers; null if unordered. */
  readonly leaderPosition: number | null;
  readonly bot: BotCost | null;
  /** Moves and interruptions during follower steps only (connect-roll). */
  readonly followerSteps: FollowerStepFigures | null;
}

export interface Strategy {
  readonly id: StrategyId;
  readonly label: string;
  run(scenario: Scenario, seed: number): Promise<RunResult>;
}
