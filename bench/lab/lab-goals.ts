import type { StrategyId } from "../run-types.js";
import { spreads } from "./lab-figures.js";
import type { LabBenchFile } from "./lab-report.js";

/** The benchmark's goals, checked on the means of one results file; `holds` null when a strategy has no runs. */
export interface GoalResult {
  readonly goal: string;
  readonly holds: boolean | null;
  readonly detail: string;
}

/** Agreement the simulator must reach with the lab on wall, Σ gap and peak. */
export const SIM_TOLERANCE = 0.15;

type Means = Readonly<Record<string, number>>;

function means(file: LabBenchFile, id: StrategyId): Means | null {
  const s = file.strategies.find((x) => x.id === id);
  if (!s || s.runs.length === 0) return null;
  return Object.fromEntries(Object.entries(spreads(s.runs)).map(([k, v]) => [k, v.mean]));
}

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pct = (x: number) => `${(x * 100).toFixed(0)} %`;

function goal(
  name: string,
  inputs: (Means | null)[],
  check: (...m: Means[]) => [boolean, string],
): GoalResult {
  const present = inputs.filter((m): m is Means => m !== null);
  if (present.length !== inputs.length) return { goal: name, holds: null, detail: "not measured" };
  const [holds, detail] = check(...present);
  return { goal: name, holds, detail };
}

export function evaluateGoals(file: LabBenchFile): GoalResult[] {
  const safe = means(file, "connect-roll");
  const win = means(file, "connect-roll-window");
  const rotate = means(file, "connect-roll-rotate");
  const ready = means(file, "statefulset-tasks-ready");
  const strimzi = means(file, "strimzi");
  const share = 1 / file.lab.workers;
  const delay = file.lab.delayMs;
  const v = (m: Means, k: string) => m[k] ?? 0;
  const out: GoalResult[] = [
    goal("safe: peak ≤ one worker's share + 5 points", [safe], (m) => [
      v(m, "peakShare") <= share + 0.05,
      `${pct(v(m, "peakShare"))} vs ${pct(share + 0.05)}`,
    ]),
    goal("safe: no follower-step interruptions", [safe], (m) => [
      v(m, "followerStepInterruptions") === 0,
      `${v(m, "followerStepInterruptions")} on average`,
    ]),
    goal("safe: max gap ≤ delay + 3 s", [safe], (m) => [
      v(m, "gapMaxMs") <= delay + 3_000,
      `${sec(v(m, "gapMaxMs"))} vs ${sec(delay + 3_000)}`,
    ]),
    goal("window: wall ≤ 0.6 × statefulset-tasks-ready", [win, ready], (w, r) => [
      v(w, "wallMs") <= 0.6 * v(r, "wallMs"),
      `${sec(v(w, "wallMs"))} vs ${sec(0.6 * v(r, "wallMs"))}`,
    ]),
    goal("window: Σ gap ≤ 1.0 × statefulset-tasks-ready", [win, ready], (w, r) => [
      v(w, "gapSumMs") <= v(r, "gapSumMs"),
      `${sec(v(w, "gapSumMs"))} vs ${sec(v(r, "gapSumMs"))}`,
    ]),
    goal("window: no follower-step interruptions", [win], (m) => [
      v(m, "followerStepInterruptions") === 0,
      `${v(m, "followerStepInterruptions")} on average`,
    ]),
    goal("window: peak ≤ 0.5 × strimzi", [win, strimzi], (w, s) => [
      v(w, "peakShare") <= 0.5 * v(s, "peakShare"),
      `${pct(v(w, "peakShare"))} vs ${pct(0.5 * v(s, "peakShare"))}`,
    ]),
    goal("rotate: Σ gap ≤ 0.9 × strimzi", [rotate, strimzi], (r, s) => [
      v(r, "gapSumMs") <= 0.9 * v(s, "gapSumMs"),
      `${sec(v(r, "gapSumMs"))} vs ${sec(0.9 * v(s, "gapSumMs"))}`,
    ]),
    goal("rotate: peak ≤ 0.5 × strimzi", [rotate, strimzi], (r, s) => [
      v(r, "peakShare") <= 0.5 * v(s, "peakShare"),
      `${pct(v(r, "peakShare"))} vs ${pct(0.5 * v(s, "peakShare"))}`,
    ]),
    goal("rotate: wall ≤ 1.5 × strimzi", [rotate, strimzi], (r, s) => [
      v(r, "wallMs") <= 1.5 * v(s, "wallMs"),
      `${sec(v(r, "wallMs"))} vs ${sec(1.5 * v(s, "wallMs"))}`,
    ]),
    goal("rotate: no follower-step interruptions", [rotate], (m) => [
      v(m, "followerStepInterruptions") === 0,
      `${v(m, "followerStepInterruptions")} on average`,
    ]),
  ];
  for (const s of file.strategies) {
    const m = means(file, s.id);
    const sim = s.sim;
    if (m === null || sim === null) continue;
    const off = (real: number, simulated: number) =>
      real === 0 ? (simulated === 0 ? 0 : 1) : Math.abs(simulated - real) / real;
    const figures: [string, number, number][] = [
      ["wall", v(m, "wallMs"), sim.wallMs],
      ["Σ gap", v(m, "gapSumMs"), sim.gap.sumMs],
      ["peak", v(m, "peakShare"), sim.peakShare],
    ];
    const worst = figures.map(([k, r, x]) => `${k} ${(off(r, x) * 100).toFixed(0)} %`);
    out.push({
      goal: `simulator within ${SIM_TOLERANCE * 100} % of the lab: ${s.id}`,
      holds: figures.every(([, r, x]) => off(r, x) <= SIM_TOLERANCE),
      detail: worst.join(", "),
    });
  }
  return out;
}

export function renderGoals(goals: readonly GoalResult[]): string {
  const mark = (h: boolean | null) => (h === null ? "not measured" : h ? "holds" : "does not hold");
  return [
    "| goal | verdict | figures (lab mean vs bound; simulator: how far off) |",
    "| --- | --- | --- |",
    ...goals.map((g) => `| ${g.goal} | ${mark(g.holds)} | ${g.detail} |`),
  ].join("\n");
}
