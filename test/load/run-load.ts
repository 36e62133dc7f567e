import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { formatDuration } from "../../src/core/format-duration.js";
import { type LoadResult, runLoad } from "./load-run.js";

/**
 * `npm run load -- [--clusters N] [--replicas R] [--channels C] [--workers W] [--seed S] [--out FILE]`: the load run
 * (load-run.ts) with its figures printed; `--out` also writes them as JSON. Exit 0 only when every cluster finished
 * with one thread, one "succeeded" report and each worker restarted once.
 */
export function describeLoad(r: LoadResult): string[] {
  const o = r.options;
  const minutes = r.wallMs / 60_000;
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
  const lines = [
    `${o.clusters} simulated clusters × ${o.workers} workers, ${o.replicas} serve replicas, ${o.channels} channels: ` +
      `${r.outcomes.filter((c) => c.results.length === 1 && c.results[0] === "succeeded").length}/${o.clusters} succeeded in ${formatDuration(r.wallMs)}`,
    `every final report in its thread after ${r.reportedMs === null ? "never" : formatDuration(r.reportedMs)}; every parent showing the result after ${formatDuration(r.wallMs)}`,
    `commands typed ${r.commandsTyped}, prompts clicked ${r.clicks}`,
    "replica     CPU time   CPU share   peak RSS",
    ...r.replicas.map(
      (x) =>
        `${x.id.padEnd(11)} ${formatDuration(x.cpuMs).padStart(8)}   ${`${((x.cpuMs / r.wallMs) * 100).toFixed(0)} %`.padStart(9)}   ${mib(x.peakRssBytes).padStart(8)}`,
    ),
    `Redis: ${r.redisCommands} commands, ${Math.round(r.redisCommands / minutes)} per minute`,
    "Slack method                   calls   per minute   busiest minute   answered 429",
    ...r.slack.map(
      (m) =>
        `${m.method.padEnd(30)} ${String(m.calls).padStart(5)}   ${String(Math.round(m.calls / minutes)).padStart(10)}   ${String(m.busiestMinute).padStart(14)}   ${String(m.limited).padStart(12)}`,
    ),
  ];
  if (r.problems.length === 0)
    lines.push(
      "every cluster: one thread, one success report, each worker restarted once, every task RUNNING",
    );
  else lines.push(...r.problems.map((p) => `FAILED ${p}`));
  return lines;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      clusters: { type: "string", default: "50" },
      replicas: { type: "string", default: "3" },
      channels: { type: "string", default: "5" },
      workers: { type: "string", default: "4" },
      seed: { type: "string", default: "1" },
      "deadline-minutes": { type: "string", default: "20" },
      out: { type: "string" },
    },
  });
  const int = (name: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`--${name} must be a whole number ≥ 1, got ${JSON.stringify(v)}`);
    return n;
  };
  const result = await runLoad({
    clusters: int("clusters", values.clusters),
    replicas: int("replicas", values.replicas),
    channels: int("channels", values.channels),
    workers: int("workers", values.workers),
    seed: int("seed", values.seed),
    deadlineMs: int("deadline-minutes", values["deadline-minutes"]) * 60_000,
  });
  for (const line of describeLoad(result)) process.stdout.write(`${line}\n`);
  if (values.out !== undefined) await writeFile(values.out, `${JSON.stringify(result, null, 2)}\n`);
  process.exitCode = result.problems.length === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((err: unknown) => {
    process.stderr.write(`load: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  });
