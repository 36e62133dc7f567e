import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildChartData } from "../../src/chart/chart-data.js";
import { renderChartSvg, renderOptionSvg } from "../../src/chart/render-chart.js";
import { startSim } from "../../src/sim/start-sim.js";
import { runInProcessRollout } from "../in-process-rollout.js";
import { labFrontierData } from "../lab/lab-frontier.js";
import type { LabBenchFile } from "../lab/lab-report.js";
import type { RunResult } from "../run-types.js";
import { scenarioById } from "../scenarios.js";
import { STRATEGIES } from "../strategies/strategies.js";
import { frontierData, frontierOption, frontierSize } from "./frontier-chart.js";

/**
 * `npm run charts:docs`: the README's pictures, regenerated into docs/charts/. A rollout's timeline (the real engine
 * against the simulator, in its time: 12 workers 3.6.1 → 3.7.1 in pace windows, labelled as simulated) and the
 * benchmark's frontier for scenario (a), one seed; and the real lab's frontier from the committed lab benchmark's
 * results (`LAB_RESULTS`, written by `npm run bench -- --lab … --json`). About a minute.
 */
const OUT = join("docs", "charts");
const LAB_RESULTS = join("bench", "results", "2026-12-02-lab-3.9.1-6w-30s.json");
const LAB_ROTATE_RESULTS = join("bench", "results", "2026-12-06-lab-3.9.1-6w-30s-rotation.json");

async function timeline(): Promise<string> {
  const sim = await startSim({
    virtualTime: true,
    workers: 12,
    connectors: 12,
    tasksPerConnector: 3,
    version: "3.6.1",
    delayMs: 60_000,
    restartMs: 10_000,
    seed: 7,
  });
  try {
    const result = await runInProcessRollout({
      sim,
      cluster: "sim-12",
      target: { kind: "upgrade", version: "3.7.1", argument: "v3.7.1" },
      pace: "window",
      delayMs: 60_000,
      expectedRestartMs: 10_000,
    });
    const data = buildChartData(result.outcome.state, {
      hideStart: true,
      note: "simulated cluster in virtual time (npm run charts:docs)",
    });
    const file = join(OUT, "rollout-timeline.svg");
    writeFileSync(file, renderChartSvg(data));
    return file;
  } finally {
    await sim.close();
  }
}

async function frontier(): Promise<string> {
  const scenario = scenarioById("a");
  if (scenario === undefined) throw new Error("no scenario (a)");
  const seeds = [1];
  const runs: RunResult[] = [];
  for (const strategy of STRATEGIES) for (const seed of seeds) runs.push(await strategy.run(scenario, seed));
  const file = join(OUT, "frontier-a.svg");
  const data = frontierData(scenario, seeds, runs);
  writeFileSync(file, renderOptionSvg(frontierOption(data), frontierSize(data)));
  return file;
}

function drawLabFrontier(results: string, name: string): string {
  const file = JSON.parse(readFileSync(results, "utf8")) as LabBenchFile;
  const out = join(OUT, name);
  const data = labFrontierData(file);
  writeFileSync(out, renderOptionSvg(frontierOption(data), frontierSize(data)));
  return out;
}

const labFrontier = async () => drawLabFrontier(LAB_RESULTS, "frontier-lab.svg");
const labRotateFrontier = async () => drawLabFrontier(LAB_ROTATE_RESULTS, "frontier-lab-rotate.svg");

mkdirSync(OUT, { recursive: true });
for (const draw of [timeline, frontier, labFrontier, labRotateFrontier])
  console.log(`written ${await draw()}`);
