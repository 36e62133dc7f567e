import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { writeFrontierChart } from "../chart/frontier-chart.js";
import { DEFAULT_LAB, type LabSettings, runOnLab, simulateLab } from "../lab-bench.js";
import type { Strategy, StrategyId } from "../run-types.js";
import { labFrontierData } from "./lab-frontier.js";
import { evaluateGoals, renderGoals } from "./lab-goals.js";
import { addRun, type LabBenchFile, renderLabTable } from "./lab-report.js";
import { holdMachineLock } from "./machine-lock.js";

const HELP = `npm run bench -- --lab [--kafka FROM[,TO]] [--workers N] [--connectors N] [--tasks-per-connector M]
  [--task-start-ms MS] [--delay-ms MS] [--declared-restart-ms MS] [--repeats R] [--strategy ID[,ID…]]
  [--lock FILE] [--json FILE] [--report-only] [--chart DIR]

Each strategy R times on a fresh real lab (Java 17+, Maven), then the simulator on the same cluster with the restart the
lab measured. --json FILE adds the runs to FILE when it holds the same settings (so repeats can be run one at a time)
and prints the table of everything in it. --lock FILE holds flock -x FILE for each lab run only. --report-only
recomputes the simulator's figures and prints the table and the goals of FILE without running the lab. --chart DIR
draws the lab's frontier there (lab-frontier.svg and .png: filled the lab's means, hollow the simulator's).`;

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!(Number.isInteger(n) && n >= 0)) throw new Error(`--${name} needs a whole number (got "${raw}")`);
  return n;
}

export async function mainLab(argv: readonly string[], strategies: readonly Strategy[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      lab: { type: "boolean" },
      kafka: { type: "string" },
      workers: { type: "string" },
      connectors: { type: "string" },
      "tasks-per-connector": { type: "string" },
      "task-start-ms": { type: "string" },
      "delay-ms": { type: "string" },
      "declared-restart-ms": { type: "string" },
      repeats: { type: "string" },
      strategy: { type: "string" },
      lock: { type: "string" },
      json: { type: "string" },
      "report-only": { type: "boolean" },
      chart: { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return void console.log(HELP);
  const [from = DEFAULT_LAB.from, to = from] = (values.kafka ?? DEFAULT_LAB.from)
    .split(",")
    .map((v) => v.trim());
  const settings: LabSettings & { cpus: number } = {
    from,
    to,
    workers: positive("workers", values.workers, DEFAULT_LAB.workers),
    connectors: positive("connectors", values.connectors, DEFAULT_LAB.connectors),
    tasksPerConnector: positive(
      "tasks-per-connector",
      values["tasks-per-connector"],
      DEFAULT_LAB.tasksPerConnector,
    ),
    taskStartMs: positive("task-start-ms", values["task-start-ms"], DEFAULT_LAB.taskStartMs),
    delayMs: positive("delay-ms", values["delay-ms"], DEFAULT_LAB.delayMs),
    sessionTimeoutMs: DEFAULT_LAB.sessionTimeoutMs,
    declaredRestartMs: positive(
      "declared-restart-ms",
      values["declared-restart-ms"],
      DEFAULT_LAB.declaredRestartMs,
    ),
    cpus: cpus().length,
  };
  const byId = new Map(strategies.map((s) => [s.id, s]));
  const picked = (values.strategy?.split(",").map((s) => s.trim()) ??
    strategies.map((s) => s.id)) as StrategyId[];
  for (const id of picked)
    if (!byId.has(id)) throw new Error(`unknown strategy "${id}" (${[...byId.keys()].join(", ")})`);
  const repeats = positive("repeats", values.repeats, 1);
  const out = values.json ?? null;
  let file: LabBenchFile | null =
    out !== null && existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as LabBenchFile) : null;
  // Ctrl-C or SIGTERM: exit, and the lab's exit hook ends every JVM it started.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const progress = (line: string) => process.stderr.write(`  ${line}\n`);
  if (!values["report-only"]) {
    for (let r = 1; r <= repeats; r += 1) {
      for (const id of picked) {
        const lock = values.lock === undefined ? null : await holdMachineLock(values.lock);
        try {
          progress(`${id}: run ${r} of ${repeats} on a fresh ${settings.workers}-worker lab`);
          const run = await runOnLab(settings, id, progress);
          file = addRun(file, settings, id, run);
        } finally {
          await lock?.release();
        }
        if (out !== null) writeFileSync(out, `${JSON.stringify(file, null, 2)}\n`);
      }
    }
  }
  if (file === null) throw new Error("no runs: name a --json file that holds some, or run the lab");
  // The simulator's figures for every strategy in the file, with the restart measured so far.
  const restartMs = file.measuredRestartMs;
  if (restartMs !== null) {
    const withSim = [];
    for (const s of file.strategies) {
      const strategy = byId.get(s.id);
      withSim.push({ ...s, sim: strategy ? await simulateLab(strategy, file.lab, restartMs) : null });
    }
    file = { ...file, strategies: withSim };
  }
  if (out !== null) writeFileSync(out, `${JSON.stringify(file, null, 2)}\n`);
  console.log(renderLabTable(file));
  console.log("");
  console.log(renderGoals(evaluateGoals(file)));
  if (values.chart !== undefined)
    for (const written of writeFrontierChart(values.chart, labFrontierData(file), "lab"))
      console.log(`written ${written}`);
}
