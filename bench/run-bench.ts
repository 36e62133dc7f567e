import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { frontierData, writeFrontierChart } from "./chart/frontier-chart.js";
import {
  CHECKPOINT_SIZES,
  type CheckpointFigures,
  renderCheckpoint,
  runCheckpointBench,
} from "./checkpoint-bench.js";
import {
  GATE_POLL_SIZES,
  type GatePollFigures,
  renderGatePoll,
  runGatePollBench,
} from "./gate-poll-bench.js";
import { mainLab } from "./lab/lab-main.js";
import { floorFigures } from "./metrics.js";
import type { RunResult, StrategyId } from "./run-types.js";
import { SCENARIOS, type Scenario, scenarioById } from "./scenarios.js";
import { createBenchCluster, highestOrdinalFirst } from "./sim-driver.js";
import { STRATEGIES } from "./strategies/strategies.js";
import { aggregatesOf, FOOTNOTES, renderScenario } from "./table.js";

/**
 * `tsx bench/run-bench.ts [--json FILE] [--chart DIR] [--scenario a|b|c|d|e|f] [--seeds N] [--quick]`: every strategy
 * on every scenario and seed of the simulator, in virtual time; prints one table per scenario and the gate-poll
 * figures. `--chart DIR` draws each scenario's frontier there (bench/chart/frontier-chart.ts).
 * `--lab [--kafka FROM,TO]`: the same strategies on real clusters (see `mainLab`).
 */
const ORDER: readonly StrategyId[] = STRATEGIES.map((s) => s.id);

interface Args {
  readonly json: string | null;
  readonly chart: string | null;
  readonly scenarios: readonly Scenario[];
  readonly seeds: number | null;
  readonly quick: boolean;
}

function parse(argv: readonly string[]): Args {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      json: { type: "string" },
      chart: { type: "string" },
      scenario: { type: "string" },
      seeds: { type: "string" },
      quick: { type: "boolean" },
    },
  });
  const picked = values.scenario === undefined ? SCENARIOS : [scenarioById(values.scenario)];
  const scenarios = picked.filter((s): s is Scenario => s !== undefined);
  if (scenarios.length === 0) throw new Error(`unknown scenario "${values.scenario}" (a|b|c|d|e|f)`);
  const seeds = values.seeds === undefined ? null : Number(values.seeds);
  if (seeds !== null && !(Number.isInteger(seeds) && seeds > 0))
    throw new Error("--seeds needs a positive integer");
  return {
    json: values.json ?? null,
    chart: values.chart ?? null,
    scenarios,
    seeds,
    quick: values.quick === true,
  };
}

/** Scenario (d): seeds whose starting leader lands first, in the middle and last of the StatefulSet order. */
export function spreadLeaderSeeds(scenario: Scenario, count: number): number[] {
  const w = scenario.sim.workers;
  const targets =
    count === 1
      ? [Math.ceil(w / 2)]
      : Array.from({ length: count }, (_, i) => 1 + Math.round((i * (w - 1)) / (count - 1)));
  const found = new Map<number, number>();
  for (let seed = 1; seed <= 500 && found.size < targets.length; seed++) {
    const bc = createBenchCluster(scenario, seed);
    bc.cluster.close();
    if (bc.leader === null) continue;
    const position = highestOrdinalFirst(bc.workers).indexOf(bc.leader) + 1;
    if (targets.includes(position) && !found.has(position)) found.set(position, seed);
  }
  return targets.flatMap((t) => {
    const seed = found.get(t);
    return seed === undefined ? [] : [seed];
  });
}

export function seedsFor(scenario: Scenario, args: Pick<Args, "seeds" | "quick">): number[] {
  const n = args.seeds ?? (args.quick ? scenario.quickSeeds.length || 1 : scenario.seeds.length || 3);
  const count = scenario.id === "e" && args.seeds !== null ? Math.max(1, Math.floor(n / 3)) : n;
  if (scenario.spreadLeader) return spreadLeaderSeeds(scenario, count);
  return Array.from({ length: count }, (_, i) => i + 1);
}

async function main(): Promise<void> {
  if (process.argv.includes("--lab")) return mainLab(process.argv.slice(2), STRATEGIES);
  const started = performance.now();
  const args = parse(process.argv.slice(2));
  const out: { scenario: Scenario; seeds: number[]; runs: RunResult[] }[] = [];
  for (const scenario of args.scenarios) {
    const seeds = seedsFor(scenario, args);
    const runs: RunResult[] = [];
    for (const seed of seeds) {
      for (const strategy of STRATEGIES) {
        const t = performance.now();
        const r = await strategy.run(scenario, seed);
        runs.push(r);
        const took = ((performance.now() - t) / 1000).toFixed(1);
        process.stderr.write(
          `  (${scenario.id}) seed ${seed} ${strategy.id}: ${r.figures ? `${took}s` : r.note}\n`,
        );
      }
    }
    out.push({ scenario, seeds, runs });
    console.log(renderScenario(scenario, seeds, runs, ORDER));
    if (args.chart !== null)
      console.log(
        `    frontier: ${writeFrontierChart(args.chart, frontierData(scenario, seeds, runs), scenario.id).join(", ")}`,
      );
    console.log("");
  }
  console.log(FOOTNOTES.join("\n"));
  console.log("");
  // 50 workers / 10,000 tasks, then 200 workers / 40,000 tasks.
  const polled: GatePollFigures[] = [];
  for (const size of GATE_POLL_SIZES) {
    const figures = await runGatePollBench({ size });
    console.log(renderGatePoll(figures));
    polled.push(figures);
  }
  const [gatePoll, ...gatePollAtScale] = polled;
  // A whole restart at 1,000 and 10,000 tasks, every checkpoint encoded as the Redis store writes it.
  const checkpoint: CheckpointFigures[] = [];
  for (const size of CHECKPOINT_SIZES) checkpoint.push(await runCheckpointBench(size));
  console.log(`\n${renderCheckpoint(checkpoint)}`);
  const seconds = (performance.now() - started) / 1000;
  console.log(`\nbench finished in ${seconds.toFixed(1)} s (real time)`);
  if (args.json !== null) {
    const json = {
      command: `tsx bench/run-bench.ts ${process.argv.slice(2).join(" ")}`.trim(),
      finishedInSeconds: seconds,
      scenarios: out.map(({ scenario, seeds, runs }) => ({
        id: scenario.id,
        title: scenario.title,
        sim: scenario.sim,
        targetVersion: scenario.targetVersion,
        seeds,
        floor: floorFigures(scenario),
        aggregates: aggregatesOf(runs, ORDER),
        runs,
      })),
      gatePoll,
      gatePollAtScale,
      checkpoint,
    };
    writeFileSync(args.json, `${JSON.stringify(json, null, 2)}\n`);
    console.log(`figures written to ${args.json}`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
