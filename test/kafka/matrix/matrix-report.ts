/** The matrix's results and their one-line and table forms. Pure. */
export interface VersionTimings {
  /** `startLab` called → every task RUNNING (broker, workers one after another, connectors). */
  readonly labUpMs: number | null;
  /** A follower's restart: the stop issued → its REST answers `GET /`. */
  readonly restUpMs: number | null;
  /** The stop issued → its join line (it is a member again). */
  readonly joinedMs: number | null;
  /** The stop issued → every task RUNNING again (the delay holds its tasks). */
  readonly tasksBackMs: number | null;
  /** `connect-roll run … restart`, from start to summary. */
  readonly rollMs: number | null;
}

export interface VersionResult {
  readonly version: string;
  readonly broker: string | null;
  readonly pass: boolean;
  readonly failures: readonly string[];
  readonly timings: VersionTimings;
  /** Resident memory, MiB: the broker, and the largest worker seen. */
  readonly rss: { readonly brokerMiB: number | null; readonly workerMiB: number | null };
  /** What this version does differently (REST, metrics, log lines), as observed. */
  readonly notes: readonly string[];
  readonly fidelity: { readonly agree: number; readonly total: number };
}

export interface StepFigure {
  readonly step: number;
  readonly worker: string;
  readonly isLeader: boolean;
  readonly protocolAfter: string | null;
  readonly predictedDowntimeMs: number;
  /** The largest real per-task data-flow gap among this worker's tasks (from before the rollout). */
  readonly maxGapMs: number;
  /** step-started → step-settled, as the run reported it. */
  readonly wallMs: number | null;
  /** The run's own measurements of the step: stop → REST up on the target, rebalances and stop-the-world ones. */
  readonly restartMs: number | null;
  readonly botRebalances: number | null;
  readonly botStopTheWorld: number | null;
  /** Stop-the-world rebalances the lab's logs show from this step's start to the next one's. */
  readonly labStopTheWorld: number | null;
}

export interface PathResult {
  readonly name: string;
  readonly broker: string;
  readonly pass: boolean;
  readonly failures: readonly string[];
  readonly rollMs: number | null;
  readonly steps: readonly StepFigure[];
  readonly counters: {
    readonly moves: number;
    readonly interruptions: number;
    readonly stopTheWorld: number;
    readonly botStopTheWorld: number | null;
  };
  readonly eagerWindows: readonly { readonly fromStep: number; readonly toStep: number }[];
  readonly findings: readonly string[];
  readonly notes: readonly string[];
}

const secs = (ms: number | null) => (ms === null ? "—" : `${(ms / 1000).toFixed(1)} s`);
const mib = (n: number | null) => (n === null ? "—" : `${Math.round(n)} MiB`);

export function versionLine(r: VersionResult): string {
  const t = r.timings;
  const head = `${r.version.padEnd(6)} ${r.pass ? "pass" : "FAIL"}`;
  const figures = [
    `lab up ${secs(t.labUpMs)}`,
    `REST up ${secs(t.restUpMs)}`,
    `joined ${secs(t.joinedMs)}`,
    `tasks back ${secs(t.tasksBackMs)}`,
    `roll ${secs(t.rollMs)}`,
    `RSS broker ${mib(r.rss.brokerMiB)}, worker ${mib(r.rss.workerMiB)}`,
    `fidelity ${r.fidelity.agree}/${r.fidelity.total}`,
  ].join(" · ");
  const broker = r.broker !== null && r.broker !== r.version ? ` (broker ${r.broker})` : "";
  return `${head}${broker}  ${figures}${r.failures.length > 0 ? `  — ${r.failures.join("; ")}` : ""}`;
}

export function pathLine(r: PathResult): string {
  const gaps = r.steps
    .map((s) => `${s.worker}${s.isLeader ? "*" : ""} ${secs(s.maxGapMs)}/${secs(s.predictedDowntimeMs)}`)
    .join(", ");
  const c = r.counters;
  return `${r.name.padEnd(12)} ${r.pass ? "pass" : "FAIL"}  roll ${secs(r.rollMs)} · gaps real/predicted ${gaps} · moves ${c.moves}, interruptions ${c.interruptions}, stop-the-world ${c.stopTheWorld}${r.failures.length > 0 ? `  — ${r.failures.join("; ")}` : ""}`;
}

/** The markdown rows docs/versions.md carries. */
export function versionTable(results: readonly VersionResult[]): string {
  const head =
    "| version | result | lab up | REST up | joined | tasks back | roll | RSS broker | RSS worker | fidelity |";
  const rows = results.map((r) => {
    const t = r.timings;
    return `| ${r.version}${r.broker !== null && r.broker !== r.version ? ` (broker ${r.broker})` : ""} | ${r.pass ? "pass" : "FAIL"} | ${secs(t.labUpMs)} | ${secs(t.restUpMs)} | ${secs(t.joinedMs)} | ${secs(t.tasksBackMs)} | ${secs(t.rollMs)} | ${mib(r.rss.brokerMiB)} | ${mib(r.rss.workerMiB)} | ${r.fidelity.agree}/${r.fidelity.total} |`;
  });
  return [head, `|${" --- |".repeat(10)}`, ...rows].join("\n");
}
