import { resolveSimOptions, type SimOptionsInput } from "../src/sim/sim-options.js";

/** The benchmark's scenarios: one simulated cluster, one upgrade, several seeds. */
export type ScenarioId = "a" | "b" | "c" | "d" | "e" | "f";

export interface Scenario {
  readonly id: ScenarioId;
  readonly title: string;
  /** Simulator options, without seed and clock (the bench sets them). */
  readonly sim: SimOptionsInput & {
    readonly workers: number;
    readonly connectors: number;
    readonly tasksPerConnector: number;
    readonly version: string;
    readonly delayMs: number;
    readonly restartMs: number;
  };
  readonly targetVersion: string;
  /** connect-roll's gate poll interval (default 5 s); large clusters are polled less often. */
  readonly pollIntervalMs?: number;
  /** The restart time connect-roll's configuration declares (default: the simulator's `restartMs`). */
  readonly expectedRestartMs?: number;
  /** Seeds of a full run and of a `--quick` run. */
  readonly seeds: readonly number[];
  readonly quickSeeds: readonly number[];
  /** Seeds are picked so that the leader lands at different positions of the naive orders (scenario d). */
  readonly spreadLeader: boolean;
}

const base = {
  workers: 12,
  connectors: 40,
  tasksPerConnector: 4,
  version: "3.6.2",
  delayMs: 300_000,
  restartMs: 40_000,
  restartJitter: 0.1,
} as const;

export const SCENARIOS: readonly Scenario[] = [
  {
    id: "a",
    title: "12 workers × 40 connectors × 4 tasks, 3.6.2 → 3.7.1, delay 300 s, restart 40 s ± 10 %",
    sim: base,
    targetVersion: "3.7.1",
    seeds: [1, 2, 3],
    quickSeeds: [1],
    spreadLeader: false,
  },
  {
    id: "b",
    title: "as (a) with delay 30 s and restart 60 s ± 10 % (the restart overruns the delay)",
    sim: { ...base, delayMs: 30_000, restartMs: 60_000 },
    targetVersion: "3.7.1",
    seeds: [1, 2, 3],
    quickSeeds: [1],
    spreadLeader: false,
  },
  {
    id: "c",
    title: "as (a) from 2.2.2 → 3.7.1 (eager until the last 2.2 worker is gone)",
    sim: { ...base, version: "2.2.2" },
    targetVersion: "3.7.1",
    seeds: [1, 2, 3],
    quickSeeds: [1],
    spreadLeader: false,
  },
  {
    id: "d",
    title: "as (a), seeds chosen so the leader is early, in the middle and last of the naive orders",
    sim: base,
    targetVersion: "3.7.1",
    seeds: [],
    quickSeeds: [],
    spreadLeader: true,
  },
  {
    id: "e",
    title:
      "50 workers × 500 connectors × 4 tasks (2,000 tasks), 3.6.2 → 3.7.1, delay 300 s, restart 40 s, gate poll 10 s",
    sim: { ...base, workers: 50, connectors: 500 },
    pollIntervalMs: 10_000,
    targetVersion: "3.7.1",
    seeds: [1],
    quickSeeds: [1],
    spreadLeader: false,
  },
  {
    id: "f",
    title:
      "as (a) with the delay connect-roll's plan recommends for a 40 s restart: 70 s (restart + 30 s margin)",
    sim: { ...base, delayMs: 70_000 },
    targetVersion: "3.7.1",
    seeds: [1, 2, 3],
    quickSeeds: [1],
    spreadLeader: false,
  },
];

export function scenarioById(id: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.id === id);
}

/** Floor of one task's downtime: its worker's restart, the join rebalance and the task start, nothing moved. */
export function floorTaskDowntimeMs(s: Scenario): number {
  const o = resolveSimOptions({ ...s.sim });
  return o.restartMs + o.rebalanceMs + o.taskStartMs;
}
