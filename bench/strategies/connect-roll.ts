import { startSim } from "../../src/sim/start-sim.js";
import { runBenchRollout } from "../in-process-rollout.js";
import { runFigures } from "../metrics.js";
import type { BotCost, RunResult, Strategy, StrategyId } from "../run-types.js";
import type { Scenario } from "../scenarios.js";
import { finishRun, prepareBenchCluster, watchLeaderBounce } from "../sim-driver.js";

/**
 * connect-roll itself (followers first, leader last, each step gated), run in process against a started simulator
 * in virtual time through `runBenchRollout` (bench/in-process-rollout.ts: the real runner, reader with its probe and
 * executor, every prompt approved).
 */
export type Pace = "safe" | "window";

export const POLL_INTERVAL_MS = 5_000;

interface RunnerOutput {
  readonly summary: unknown;
  readonly httpCalls: number;
  readonly polls: number;
  /** Single-worker probes (0 when the runner does not say). */
  readonly probes: number;
  readonly cpuMs: number;
}

export type RunInProcessRollout = (options: Record<string, unknown>) => Promise<unknown>;

/** The runner function. */
export function loadRunner(): Promise<RunInProcessRollout | string> {
  return Promise.resolve((options) =>
    runBenchRollout(options as unknown as Parameters<typeof runBenchRollout>[0]),
  );
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null;
}

function parseOutput(x: unknown): RunnerOutput | string {
  if (!isRecord(x)) return "runner returned no object";
  const num = (k: string): number => (typeof x[k] === "number" ? x[k] : Number.NaN);
  const out = {
    summary: x.summary,
    httpCalls: num("httpCalls"),
    polls: num("polls"),
    probes: typeof x.probes === "number" ? x.probes : 0,
    cpuMs: num("cpuMs"),
  };
  return Number.isNaN(out.httpCalls + out.polls + out.cpuMs)
    ? "runner returned no httpCalls/polls/cpuMs"
    : out;
}

function resultOf(summary: unknown): string {
  return isRecord(summary) && typeof summary.result === "string" ? summary.result : "unknown";
}

function stepCount(summary: unknown, fallback: number): number {
  return isRecord(summary) && Array.isArray(summary.steps) ? summary.steps.length : fallback;
}

function unavailable(id: StrategyId, scenario: Scenario, seed: number, note: string): RunResult {
  return {
    strategy: id,
    scenario: scenario.id,
    seed,
    figures: null,
    note,
    leader: null,
    leaderPosition: null,
    bot: null,
    followerSteps: null,
  };
}

export async function runConnectRoll(scenario: Scenario, seed: number, pace: Pace): Promise<RunResult> {
  const runner = await loadRunner();
  if (typeof runner === "string") return unavailable(idOf(pace), scenario, seed, runner);
  return runConnectRollWith(runner, scenario, seed, pace);
}

function idOf(pace: Pace): StrategyId {
  return pace === "safe" ? "connect-roll" : "connect-roll-window";
}

/** One connect-roll rollout with the given runner (the real one, or a stand-in in tests). */
export async function runConnectRollWith(
  runner: RunInProcessRollout,
  scenario: Scenario,
  seed: number,
  pace: Pace,
): Promise<RunResult> {
  const id = idOf(pace);
  const sim = await startSim({ ...scenario.sim, seed, virtualTime: true, host: "127.0.0.1" });
  try {
    const bc = prepareBenchCluster(sim.cluster, scenario, seed);
    await sim.settle();
    const watch = watchLeaderBounce(bc);
    const cpuBefore = process.cpuUsage();
    const raw = await runner({
      sim,
      target: { kind: "upgrade", version: scenario.targetVersion, argument: scenario.targetVersion },
      pace,
      pollIntervalMs: scenario.pollIntervalMs ?? POLL_INTERVAL_MS,
      expectedRestartMs: scenario.sim.restartMs,
      delayMs: scenario.sim.delayMs,
    });
    const cpu = process.cpuUsage(cpuBefore);
    const out = parseOutput(raw);
    if (typeof out === "string") return unavailable(id, scenario, seed, out);
    const toolDoneMs = sim.cluster.now() - bc.t0;
    const f = finishRun(bc);
    watch.stop();
    const followerSteps = watch.read() ?? { moves: f.moves, interruptions: f.interruptions };
    const mem = process.memoryUsage();
    const bot: BotCost = {
      steps: stepCount(out.summary, bc.workers.length),
      polls: out.polls,
      probes: out.probes,
      httpCalls: out.httpCalls,
      // The runner's own figure when it gives one; else this process's CPU time during the run (sim included).
      cpuMs: out.cpuMs > 0 ? out.cpuMs : (cpu.user + cpu.system) / 1000,
      rssMiB: mem.rss / 2 ** 20,
      heapUsedMiB: mem.heapUsed / 2 ** 20,
    };
    const result = resultOf(out.summary);
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
