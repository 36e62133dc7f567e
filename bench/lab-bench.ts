import { loadavg } from "node:os";
import type { LabTimeline } from "../src/lab/lab-ledger.js";
import { startLab } from "../src/lab/start-lab.js";
import type { SimState } from "../src/sim/sim-types.js";
import { type DriveShape, LAB_DRIVES } from "./lab/lab-drives.js";
import { followerStepInterruptions, gapFigures, type LabRunFigures, peakShare } from "./lab/lab-figures.js";
import type { RunResult, Strategy, StrategyId } from "./run-types.js";
import type { Scenario } from "./scenarios.js";

/**
 * `npm run bench -- --lab …`: the benchmark's strategies on real Kafka Connect clusters (the lab), each run on a fresh
 * lab; figures from the lab's ground truth (bench/lab/lab-figures.ts), and for each strategy the simulator's figures
 * for the same cluster and the restart time the lab measured.
 */
export interface LabSettings extends DriveShape {
  readonly workers: number;
  readonly connectors: number;
  readonly tasksPerConnector: number;
  readonly taskStartMs: number;
}

export const DEFAULT_LAB: LabSettings = {
  from: "3.9.1",
  to: "3.9.1",
  workers: 6,
  connectors: 6,
  tasksPerConnector: 4,
  taskStartMs: 2_000,
  delayMs: 30_000,
  sessionTimeoutMs: 6_000,
  declaredRestartMs: 15_000,
};

/** One lab run: its figures, the restarts it measured (stop → joined, ms) and the machine's load when it began. */
export interface LabRun extends LabRunFigures {
  readonly restartsMs: readonly number[];
  readonly load1: number;
}

type LabState = SimState & { readonly timeline: LabTimeline };

/** Steady running before the roll begins (tasks that have just started keep a stale RUNNING when stopped). */
const STEADY_BEFORE_MS = 10_000;
const SAMPLE_MS = 500;
const SETTLE_TIMEOUT_MS = 900_000;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function stateOf(controlUrl: string): Promise<LabState> {
  const r = await fetch(`${controlUrl}/sim/state`, { signal: AbortSignal.timeout(30_000) });
  return (await r.json()) as LabState;
}

function steady(s: LabState, version: string): boolean {
  return (
    s.heldTasks.length === 0 &&
    s.delayDeadline === null &&
    s.workers.every((w) => w.state === "running" && w.joined && w.version === version) &&
    s.tasks.length > 0 &&
    s.tasks.every((t) => t.state === "RUNNING")
  );
}

/** Restart times: from each stop the lab made to the first sample after it that found that worker joined again. */
export function restartsFrom(
  stops: LabTimeline["stops"],
  joins: ReadonlyMap<string, readonly number[]>,
): number[] {
  return stops.flatMap((s) => {
    const at = (joins.get(s.worker) ?? []).find((t) => t > s.at);
    return at === undefined ? [] : [at - s.at];
  });
}

export async function runOnLab(
  settings: LabSettings,
  strategy: StrategyId,
  progress: (line: string) => void,
): Promise<LabRun> {
  const load1 = loadavg()[0] ?? 0;
  const lab = await startLab({
    kafka: settings.from,
    brokerVersion: settings.to,
    workers: settings.workers,
    connectors: settings.connectors,
    tasksPerConnector: settings.tasksPerConnector,
    taskStartMs: settings.taskStartMs,
    delayMs: settings.delayMs,
    sessionTimeoutMs: settings.sessionTimeoutMs,
    onProgress: progress,
  });
  try {
    await pause(STEADY_BEFORE_MS);
    const s0 = await stateOf(lab.controlUrl);
    const t0 = Date.now();
    // Each worker's joins as the samples see them (joined after not joined).
    const joins = new Map<string, number[]>();
    const wasJoined = new Map(s0.workers.map((w) => [w.name, w.joined]));
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const s = await stateOf(lab.controlUrl).catch(() => null);
        for (const w of s?.workers ?? []) {
          if (w.joined && wasJoined.get(w.name) === false)
            joins.set(w.name, [...(joins.get(w.name) ?? []), s?.now ?? 0]);
          wasJoined.set(w.name, w.joined);
        }
        await pause(SAMPLE_MS);
      }
    })();
    let note: string | undefined;
    await LAB_DRIVES[strategy](lab, settings).catch((e: unknown) => {
      note = `the roll failed: ${e instanceof Error ? e.message : String(e)}`;
    });
    let s = await stateOf(lab.controlUrl);
    while (!steady(s, settings.to) && Date.now() - t0 < SETTLE_TIMEOUT_MS) {
      await pause(250);
      s = await stateOf(lab.controlUrl);
    }
    const settled = steady(s, settings.to);
    if (!settled) note ??= `did not settle within ${SETTLE_TIMEOUT_MS / 60_000} min`;
    sampling = false;
    await sampler;
    const end = s.now;
    const tl = s.timeline;
    const since = <T extends { readonly at: number }>(xs: readonly T[]) => xs.filter((x) => x.at >= t0);
    const taskIds = s.tasks.map((t) => t.id);
    return {
      wallMs: end - t0,
      gap: gapFigures(tl.gaps, taskIds, t0, end),
      peakShare: peakShare(tl.gaps, taskIds.length, t0, end),
      moves: s.counters.taskMoves - s0.counters.taskMoves,
      interruptions: s.counters.taskInterruptions - s0.counters.taskInterruptions,
      stopTheWorld: s.counters.eagerRebalances - s0.counters.eagerRebalances,
      followerStepInterruptions: followerStepInterruptions({
        interruptions: since(tl.interruptions),
        stops: since(tl.stops),
      }),
      settled,
      ...(note === undefined ? {} : { note }),
      restartsMs: restartsFrom(since(tl.stops), joins),
      load1,
    };
  } finally {
    await lab.close();
  }
}

/** The simulator on the lab's cluster, with the restart the lab measured: the figures' mean over 3 seeds. */
export async function simulateLab(
  strategy: Strategy,
  settings: LabSettings,
  restartMs: number,
): Promise<LabRunFigures | null> {
  const scenario = {
    id: "a",
    title: "lab",
    sim: {
      workers: settings.workers,
      connectors: settings.connectors,
      tasksPerConnector: settings.tasksPerConnector,
      version: settings.from,
      delayMs: settings.delayMs,
      restartMs: Math.round(restartMs),
      restartJitter: 0.1,
      taskStartMs: settings.taskStartMs,
      sessionTimeoutMs: settings.sessionTimeoutMs,
    },
    targetVersion: settings.to,
    pollIntervalMs: 1_000,
    expectedRestartMs: settings.declaredRestartMs,
    seeds: [1, 2, 3],
    quickSeeds: [1],
    spreadLeader: false,
  } satisfies Scenario;
  const runs: RunResult[] = [];
  for (const seed of scenario.seeds) runs.push(await strategy.run(scenario, seed));
  const figs = runs.flatMap((r) => (r.figures ? [{ f: r.figures, fol: r.followerSteps }] : []));
  if (figs.length === 0) return null;
  const mean = (pick: (x: (typeof figs)[number]) => number) =>
    figs.reduce((a, x) => a + pick(x), 0) / figs.length;
  return {
    wallMs: mean((x) => x.f.wallMs),
    gap: {
      p50Ms: mean((x) => x.f.downtime.p50Ms),
      maxMs: mean((x) => x.f.downtime.maxMs),
      sumMs: mean((x) => x.f.downtime.sumMs),
    },
    peakShare: mean((x) => x.f.peakShare),
    moves: mean((x) => x.f.moves),
    interruptions: mean((x) => x.f.interruptions),
    stopTheWorld: mean((x) => x.f.eagerRebalances),
    followerStepInterruptions: mean((x) => x.fol?.interruptions ?? x.f.interruptions),
    settled: figs.every((x) => x.f.settled),
  };
}
