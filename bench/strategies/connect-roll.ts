import type { RolloutPace } from "../../src/core/plan/plan-types.js";
import { startSim } from "../../src/sim/start-sim.js";
import { type BenchRolloutOptions, runBenchRollout } from "../in-process-rollout.js";
import { runFigures } from "../metrics.js";
import type { BotCost, RunResult, Strategy, StrategyId } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import { finishRun, prepareBenchCluster, watchLeaderBounce } from "../sim-driver.js";

export const POLL_INTERVAL_MS = 5_000;

/** What a rollout gives the benchmark: the real runner's `BenchRolloutResult`, or a stand-in's in tests. */
export interface RunnerOutput {
  readonly summary: { readonly result: string; readonly steps: readonly unknown[] };
  readonly httpCalls: number;
  readonly polls: number;
  /** Single-worker probes. */
  readonly probes: number;
  readonly cpuMs: number;
}

export type BenchRunner = (options: BenchRolloutOptions) => Promise<RunnerOutput>;

/**
 * connect-roll itself (followers first, leader last, each step gated), run in process against a started simulator
 * in virtual time through `runBenchRollout` (bench/in-process-rollout.ts: the real runner, reader with its probe and
 * executor, every prompt approved).
 */
export function runConnectRoll(scenario: Scenario, seed: number, pace: RolloutPace): Promise<RunResult> {
  return runConnectRollWith(runBenchRollout, scenario, seed, pace);
}

function idOf(pace: RolloutPace): StrategyId {
  return pace === "safe" ? "connect-roll" : pace === "window" ? "connect-roll-window" : "connect-roll-rotate";
}

/** One connect-roll rollout with the given runner (the real one, or a stand-in in tests). */
export async function runConnectRollWith(
  runner: BenchRunner,
  scenario: Scenario,
  seed: number,
  pace: RolloutPace,
): Promise<RunResult> {
  const id = idOf(pace);
  const sim = await startSim({ ...scenario.sim, seed, virtualTime: true, host: "127.0.0.1" });
  try {
    const bc = prepareBenchCluster(sim.cluster, scenario, seed);
    await sim.settle();
    const watch = watchLeaderBounce(bc);
    const cpuBefore = process.cpuUsage();
    const out = await runner({
      sim,
      target:
        scenario.targetVersion === scenario.sim.version
          ? { kind: "restart", version: "", argument: "restart" }
          : { kind: "upgrade", version: scenario.targetVersion, argument: scenario.targetVersion },
      pace,
      pollIntervalMs: scenario.pollIntervalMs ?? POLL_INTERVAL_MS,
      expectedRestartMs: scenario.expectedRestartMs ?? scenario.sim.restartMs,
      delayMs: scenario.sim.delayMs,
    });
    const cpu = process.cpuUsage(cpuBefore);
    const toolDoneMs = sim.cluster.now() - bc.t0;
    const f = finishRun(bc);
    watch.stop();
    const followerSteps = watch.read() ?? { moves: f.moves, interruptions: f.interruptions };
    const mem = process.memoryUsage();
    const bot: BotCost = {
      steps: out.summary.steps.length,
      polls: out.polls,
      probes: out.probes,
      httpCalls: out.httpCalls,
      // The runner's own figure when it gives one; else this process's CPU time during the run (sim included).
      cpuMs: out.cpuMs > 0 ? out.cpuMs : (cpu.user + cpu.system) / 1000,
      rssMiB: mem.rss / 2 ** 20,
      heapUsedMiB: mem.heapUsed / 2 ** 20,
    };
    const result = out.summary.result;
    return {
      strategy: id,
      scenario: scenario.id,
      seed,
      figures: runFigures(f, toolDoneMs),
      note: result === "succeeded" ? null : `runner result: ${result}`,
      leader: bc.leader,
      leaderPosition: watch.leaderPosition(),
      bot,
      followerSteps,
    };
  } finally {
    await sim.close();
  }
}

export const connectRoll: Strategy = {
  id: "connect-roll",
  label: "connect-roll (safe)",
  run: (scenario, seed) => runConnectRoll(scenario, seed, "safe"),
};

export const connectRollWindow: Strategy = {
  id: "connect-roll-window",
  label: "connect-roll (window)",
  run: (scenario, seed) => runConnectRoll(scenario, seed, "window"),
};

export const connectRollRotate: Strategy = {
  id: "connect-roll-rotate",
  label: "connect-roll (rotate)",
  run: (scenario, seed) => runConnectRoll(scenario, seed, "rotate"),
};
