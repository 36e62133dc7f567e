import type { Scenario } from "../../bench/scenarios.js";

/** 3 workers × 3 connectors × 2 tasks, 3.6.2 → 3.7.1, one seed: a benchmark scenario small enough for a test. */
export function smallScenario(timing: { readonly delayMs: number; readonly restartMs: number }): Scenario {
  return {
    id: "a",
    title: "3 workers × 3 connectors × 2 tasks",
    sim: { workers: 3, connectors: 3, tasksPerConnector: 2, version: "3.6.2", ...timing, restartJitter: 0 },
    targetVersion: "3.7.1",
    seeds: [1],
    quickSeeds: [1],
    spreadLeader: false,
  };
}
