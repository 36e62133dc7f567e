import { recommendedDelayFor } from "../../src/core/plan/advise-delay.js";
import type { LabRun, LabSettings } from "../lab-bench.js";
import type { StrategyId } from "../run-types.js";
import { type LabRunFigures, type Spread, spreadOf, spreads } from "./lab-figures.js";

/** The lab benchmark's JSON file: the settings, and per strategy its lab runs and the simulator's mean. */
export interface LabBenchFile {
  readonly lab: LabSettings & { readonly cpus: number };
  /** Median of every restart the runs measured (stop → joined), what the simulator was given. */
  readonly measuredRestartMs: number | null;
  readonly strategies: readonly {
    readonly id: StrategyId;
    readonly runs: readonly LabRun[];
    readonly sim: LabRunFigures | null;
  }[];
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? null) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

const sameSettings = (a: LabSettings, b: LabSettings) =>
  (Object.keys(a) as (keyof LabSettings)[]).every((k) => a[k] === b[k]);

/** Adds a run to a file (a new one when `file` is null or holds other settings, which it then refuses). */
export function addRun(
  file: LabBenchFile | null,
  settings: LabSettings & { readonly cpus: number },
  id: StrategyId,
  run: LabRun,
): LabBenchFile {
  if (file !== null && !sameSettings(file.lab, settings))
    throw new Error("the results file holds runs with other lab settings; name another --json file");
  const strategies = [...(file?.strategies ?? [])];
  const i = strategies.findIndex((s) => s.id === id);
  const current = i < 0 ? { id, runs: [], sim: null } : strategies[i];
  const next = { id, runs: [...(current?.runs ?? []), run], sim: current?.sim ?? null };
  if (i < 0) strategies.push(next);
  else strategies[i] = next;
  const restarts = strategies.flatMap((s) => s.runs.flatMap((r) => r.restartsMs));
  return { lab: settings, measuredRestartMs: median(restarts), strategies };
}

const sec = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const pct = (x: number) => `${Math.round(x * 100)} %`;
const num = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

function cell(s: Spread | undefined, fmt: (x: number) => string, sim: number | null): string {
  if (s === undefined) return "—";
  const range = s.min === s.max ? "" : ` (${fmt(s.min)}–${fmt(s.max)})`;
  return `${fmt(s.mean)}${range}${sim === null ? "" : ` [${fmt(sim)}]`}`;
}

/**
 * The floor for this lab: a task is down only while its own worker restarts (and its start cost), one worker at a
 * time, each restart right after the one before (each figure a bound of its own: no roll reaches all at once).
 */
export function labFloor(
  file: LabBenchFile,
): { perTaskMs: number; sumMs: number; peakShare: number; wallMs: number } | null {
  if (file.measuredRestartMs === null) return null;
  const perTaskMs = file.measuredRestartMs + file.lab.taskStartMs;
  const tasks = file.lab.connectors * file.lab.tasksPerConnector;
  return {
    perTaskMs,
    sumMs: perTaskMs * tasks,
    peakShare: 1 / file.lab.workers,
    wallMs: file.measuredRestartMs * file.lab.workers,
  };
}

export function renderLabTable(file: LabBenchFile): string {
  const l = file.lab;
  const head = [
    `Real lab: ${l.workers} workers × ${l.connectors} connectors × ${l.tasksPerConnector} tasks, ${l.from}${l.to === l.from ? " (restart)" : ` → ${l.to}`}, delay ${sec(l.delayMs)}, task start ${sec(l.taskStartMs)}, ${l.cpus} cores; connect-roll declares a ${sec(l.declaredRestartMs)} restart.`,
    `Each figure: mean over the runs (min–max) [simulator, same cluster, restart ${file.measuredRestartMs === null ? "—" : sec(file.measuredRestartMs)} as measured, mean of 3 seeds].`,
    "",
    "| strategy | runs | wall | data gap p50 | data gap max | data gap Σ | peak no data | moves | interruptions | stop-the-world | follower-step interruptions | settled | load (1 min) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  const rows = file.strategies.map((s) => {
    const sp = spreads(s.runs);
    const m = s.sim;
    const load = spreadOf(s.runs.map((r) => r.load1));
    return `| ${s.id} | ${s.runs.length} | ${cell(sp.wallMs, sec, m?.wallMs ?? null)} | ${cell(sp.gapP50Ms, sec, m?.gap.p50Ms ?? null)} | ${cell(sp.gapMaxMs, sec, m?.gap.maxMs ?? null)} | ${cell(sp.gapSumMs, sec, m?.gap.sumMs ?? null)} | ${cell(sp.peakShare, pct, m?.peakShare ?? null)} | ${cell(sp.moves, num, m?.moves ?? null)} | ${cell(sp.interruptions, num, m?.interruptions ?? null)} | ${cell(sp.stopTheWorld, num, m?.stopTheWorld ?? null)} | ${cell(sp.followerStepInterruptions, num, m?.followerStepInterruptions ?? null)} | ${s.runs.filter((r) => r.settled).length}/${s.runs.length} | ${load === null ? "—" : cell(load, (x) => x.toFixed(1), null)} |`;
  });
  const floor = labFloor(file);
  const notes = file.strategies.flatMap((s) =>
    s.runs.flatMap((r, i) => (r.note ? [`- ${s.id} run ${i + 1}: ${r.note}`] : [])),
  );
  return [
    ...head,
    ...rows,
    ...(floor === null
      ? []
      : [
          "",
          `Floor for this lab (a task down only while its own worker restarts, one worker at a time): per task ${sec(floor.perTaskMs)}, Σ ${sec(floor.sumMs)}, peak ${pct(floor.peakShare)}, no moves, no interruptions.`,
          `The delay connect-roll's plan recommends for the measured restart: ${sec(recommendedDelayFor(file.measuredRestartMs ?? 0))} (restart + max(min(30 s, 2 × restart), restart / 2), up to the next 10 s).`,
        ]),
    ...(notes.length > 0 ? ["", ...notes] : []),
  ].join("\n");
}
