import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { stringify } from "yaml";
import { runCommand } from "../src/cli/commands/run.js";
import { runCli } from "../src/cli/main.js";
import { checkoutRestartCommand, labClusterConfig } from "../src/composition/lab-cluster-config.js";
import type { RolloutPace } from "../src/core/plan/plan-types.js";
import { type RunningLab, startLab } from "../src/lab/start-lab.js";
import type { SimState } from "../src/sim/sim-types.js";
import type { RunResult, Strategy } from "./run-types.js";
import type { Scenario } from "./scenarios.js";
import { allAtOnce } from "./strategies/all-at-once.js";
import { connectRoll, connectRollWindow } from "./strategies/connect-roll.js";
import { deployment } from "./strategies/deployment.js";
import { statefulSet } from "./strategies/statefulset.js";

/**
 * `npm run bench -- --lab --kafka V`: the benchmark's strategies on real Kafka Connect clusters (the lab), sized for
 * 2 cores, each on a fresh lab; figures from the lab's ledger plus the real per-task data-flow gaps, and next to each
 * row the simulator's figure for the same cluster and strategy (the prediction error).
 */
type LabState = SimState & { dataFlow: { maxGapMs: number; perTask: Record<string, number> } };

export interface LabBenchRow {
  readonly strategy: string;
  readonly wallMs: number;
  readonly downtimeSumMs: number;
  readonly gapP50Ms: number;
  readonly gapMaxMs: number;
  readonly moves: number;
  readonly interruptions: number;
  readonly rebalances: number;
  readonly peakShare: number;
  readonly sim: {
    wallMs: number;
    downtimeSumMs: number;
    maxMs: number;
    moves: number;
    interruptions: number;
    peakShare: number;
  } | null;
}

export interface LabBenchShape {
  readonly from: string;
  readonly to: string;
  readonly workers: number;
  readonly connectors: number;
  readonly tasksPerConnector: number;
  readonly delayMs: number;
}

const SHAPE: LabBenchShape = {
  from: "3.9.1",
  to: "4.1.1",
  workers: 4,
  connectors: 4,
  tasksPerConnector: 2,
  delayMs: 20_000,
};

async function state(lab: RunningLab): Promise<LabState> {
  return (await (
    await fetch(`${lab.controlUrl}/sim/state`, { signal: AbortSignal.timeout(30_000) })
  ).json()) as LabState;
}

const steady = (s: LabState, to: string) =>
  s.heldTasks.length === 0 &&
  s.delayDeadline === null &&
  s.workers.every((w) => w.state === "running" && w.version === to) &&
  s.tasks.every((t) => t.state === "RUNNING");

async function ready(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
    if (r?.status === 200) return;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error(`${url} not ready in time`);
}

async function restartThenReady(lab: RunningLab, name: string, to: string): Promise<void> {
  await fetch(`${lab.controlUrl}/sim/workers/${name}/restart?version=${to}`, {
    method: "POST",
    signal: AbortSignal.timeout(600_000),
  });
  const url = lab.workers.find((w) => w.name === name)?.url ?? "";
  await ready(url, Date.now() + 300_000);
}

/** A fixed shuffle (a Deployment replaces pods without regard to the leader or the ordinals). */
function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const out = [...items];
  let x = seed;
  for (let i = out.length - 1; i > 0; i -= 1) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

type Drive = (lab: RunningLab, shape: LabBenchShape) => Promise<void>;

/** Real-time versions of the naive strategies: readiness = `/health` answers 200 (process up, first rebalance done). */
const NAIVE = {
  // Highest ordinal first, the next once the last one is ready (Strimzi, a StatefulSet rolling update).
  statefulset: async (lab, shape) => {
    for (const w of [...lab.workers].reverse()) await restartThenReady(lab, w.name, shape.to);
  },
  // 25 % of 4 workers: one at a time, in a shuffled order.
  deployment: async (lab, shape) => {
    for (const w of shuffled(lab.workers)) await restartThenReady(lab, w.name, shape.to);
  },
  "all-at-once": async (lab, shape) => {
    await Promise.all(lab.workers.map((w) => restartThenReady(lab, w.name, shape.to)));
  },
} satisfies Record<string, Drive>;

async function connectRollOnLab(lab: RunningLab, shape: LabBenchShape, pace: RolloutPace): Promise<void> {
  const config = join(tmpdir(), `connect-roll-lab-bench-${process.pid}-${Date.now()}.yml`);
  const cluster = labClusterConfig({
    workers: lab.workers,
    controlUrl: lab.controlUrl,
    delayMs: shape.delayMs,
    sessionTimeoutMs: 6_000,
    restartCommand: checkoutRestartCommand(lab.controlUrl),
    pollIntervalMs: 1_000,
  });
  await writeFile(config, stringify({ clusters: { lab: cluster } }));
  const out = new PassThrough();
  out.resume();
  const code = await runCli(
    { version: "0", commands: [runCommand] },
    ["run", "--config", config, "lab", shape.to, "--yes", "--json", "--pace", pace],
    {
      stdout: out,
      stderr: new PassThrough().resume(),
      stdin: new PassThrough(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "error" },
      signal: new AbortController().signal,
    },
  );
  if (code !== 0) throw new Error(`connect-roll run exited ${code}`);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function measure(
  shape: LabBenchShape,
  strategy: string,
  drive: (lab: RunningLab) => Promise<void>,
): Promise<Omit<LabBenchRow, "sim">> {
  const lab = await startLab({
    kafka: shape.from,
    brokerVersion: shape.to,
    workers: shape.workers,
    connectors: shape.connectors,
    tasksPerConnector: shape.tasksPerConnector,
    delayMs: shape.delayMs,
    sessionTimeoutMs: 6_000,
  });
  try {
    const s0 = await state(lab);
    const t0 = Date.now();
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const s = await state(lab).catch(() => null);
        if (s) peak = Math.max(peak, s.heldTasks.length / Math.max(1, s.tasks.length));
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    await drive(lab);
    let s = await state(lab);
    while (!steady(s, shape.to)) {
      if (Date.now() - t0 > 1_800_000) throw new Error(`${strategy}: the cluster did not settle`);
      await new Promise((r) => setTimeout(r, 250));
      s = await state(lab);
    }
    sampling = false;
    await sampler;
    const gaps = Object.values(s.dataFlow.perTask);
    return {
      strategy,
      wallMs: Date.now() - t0,
      downtimeSumMs: s.counters.taskDowntimeMs - s0.counters.taskDowntimeMs,
      gapP50Ms: quantile(gaps, 0.5),
      gapMaxMs: Math.max(0, ...gaps),
      moves: s.counters.taskMoves - s0.counters.taskMoves,
      interruptions: s.counters.taskInterruptions - s0.counters.taskInterruptions,
      rebalances: s.counters.rebalances - s0.counters.rebalances,
      peakShare: peak,
    };
  } finally {
    await lab.close();
  }
}

/** The simulator's figures for the same cluster, strategy and measured restart time (mean over 3 seeds). */
async function simulate(
  strategy: Strategy,
  shape: LabBenchShape,
  restartMs: number,
): Promise<LabBenchRow["sim"]> {
  const scenario = {
    id: "a",
    title: "lab",
    sim: {
      workers: shape.workers,
      connectors: shape.connectors,
      tasksPerConnector: shape.tasksPerConnector,
      version: shape.from,
      delayMs: shape.delayMs,
      restartMs,
      restartJitter: 0.1,
      sessionTimeoutMs: 6_000,
    },
    targetVersion: shape.to,
    pollIntervalMs: 1_000,
    seeds: [1, 2, 3],
    quickSeeds: [1],
    spreadLeader: false,
  } satisfies Scenario;
  const runs: RunResult[] = [];
  for (const seed of scenario.seeds) runs.push(await strategy.run(scenario, seed));
  const figs = runs.flatMap((r) => (r.figures ? [r.figures] : []));
  if (figs.length === 0) return null;
  const mean = (f: (x: (typeof figs)[number]) => number) => figs.reduce((a, x) => a + f(x), 0) / figs.length;
  return {
    wallMs: mean((f) => f.wallMs),
    downtimeSumMs: mean((f) => f.downtime.sumMs),
    maxMs: mean((f) => f.downtime.maxMs),
    moves: mean((f) => f.moves),
    interruptions: mean((f) => f.interruptions),
    peakShare: mean((f) => f.peakShare),
  };
}

const SIM_STRATEGY: Readonly<Record<string, Strategy>> = {
  "connect-roll": connectRoll,
  "connect-roll-window": connectRollWindow,
  deployment,
  statefulset: statefulSet,
  "all-at-once": allAtOnce,
};

export async function runLabBench(
  versions: { from: string; to: string },
  restartMs: number,
  progress: (line: string) => void,
): Promise<LabBenchRow[]> {
  const shape = { ...SHAPE, ...versions };
  const drives: [string, (lab: RunningLab) => Promise<void>][] = [
    ["connect-roll", (lab) => connectRollOnLab(lab, shape, "safe")],
    ["connect-roll-window", (lab) => connectRollOnLab(lab, shape, "window")],
    ["statefulset", (lab) => NAIVE.statefulset(lab, shape)],
    ["deployment", (lab) => NAIVE.deployment(lab, shape)],
    ["all-at-once", (lab) => NAIVE["all-at-once"](lab, shape)],
  ];
  const rows: LabBenchRow[] = [];
  for (const [strategy, drive] of drives) {
    progress(`${strategy} on a real ${shape.workers}-worker lab (${shape.from} → ${shape.to})`);
    const real = await measure(shape, strategy, drive);
    const simStrategy = SIM_STRATEGY[strategy];
    const sim = simStrategy ? await simulate(simStrategy, shape, restartMs) : null;
    rows.push({ ...real, sim });
  }
  return rows;
}

const s = (ms: number) => `${Math.round(ms / 1000)}s`;
const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;

export function renderLabBench(rows: readonly LabBenchRow[], shape: string): string {
  const head =
    "| strategy | wall (sim) | task downtime Σ (sim) | data-flow gap p50 / max (sim max) | moves (sim) | interruptions (sim) | rebalances | peak down (sim) |";
  const lines = [
    `Real lab: ${shape}. Simulator: the same cluster, strategy and restart time, mean of 3 seeds.`,
    "",
    head,
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) => {
      const m = r.sim;
      return `| ${r.strategy} | ${s(r.wallMs)} (${m ? s(m.wallMs) : "—"}) | ${s(r.downtimeSumMs)} (${m ? s(m.downtimeSumMs) : "—"}) | ${s(r.gapP50Ms)} / ${s(r.gapMaxMs)} (${m ? s(m.maxMs) : "—"}) | ${r.moves} (${m ? m.moves.toFixed(1) : "—"}) | ${r.interruptions} (${m ? m.interruptions.toFixed(1) : "—"}) | ${r.rebalances} | ${pct(r.peakShare)} (${m ? pct(m.peakShare) : "—"}) |`;
    }),
  ];
  return lines.join("\n");
}
