import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { svgToPng } from "../../src/chart/render-chart.js";
import { type ClusterDriver, type ClusterShape, startLabDriver, startSimDriver } from "./cluster-driver.js";
import { fidelityChartSvg } from "./fidelity-chart.js";
import { KNOWN_DIFFERENCES } from "./known-differences.js";
import { type Observation, SCENARIOS, type Scenario } from "./scenarios.js";

/**
 * `npm run fidelity -- --kafka V[,V…] [--scenario NAME[,NAME…]] [--json FILE] [--chart FILE.svg|.png]`: every scenario
 * on the simulator (virtual time) and on the real lab (real time) with the same parameters; a table of what each saw,
 * and with `--chart` the timings drawn (fidelity-chart.ts). `--from-json FILE` reads an earlier run's rows instead of
 * running (to draw or print it again). Exit 0 only when everything agrees or is a known, explained difference.
 */
export interface Row {
  readonly version: string;
  readonly scenario: string;
  readonly observation: string;
  readonly sim: Observation["value"];
  readonly real: Observation["value"];
  readonly tolerance: number | null;
  readonly verdict: "agrees" | "known" | "differs";
  readonly note: string | null;
}

const NEXT: Readonly<Record<string, string>> = { "3.9.1": "4.1.1", "3.9.2": "4.1.1" };

export function shapeFor(kind: Scenario["shape"], version: string): ClusterShape {
  const base = {
    version,
    workers: 3,
    connectors: 3,
    tasksPerConnector: 2,
    delayMs: 15_000,
    sessionTimeoutMs: 6_000,
  };
  if (kind === "eager") return { ...base, connectProtocols: { "worker-3": "eager" } };
  if (kind === "compatible") return { ...base, connectProtocols: { "worker-3": "compatible" } };
  if (kind === "mixed") return { ...base, alsoVersions: NEXT[version] ? [NEXT[version]] : [] };
  return base;
}

function compare(version: string, scenario: string, sim: Observation, real: Observation | undefined): Row {
  const tolerance = sim.tolerance ?? null;
  const r = real?.value ?? null;
  const agrees =
    typeof sim.value === "number" && typeof r === "number" && tolerance !== null
      ? Math.abs(sim.value - r) <= tolerance
      : sim.value === r;
  const known = KNOWN_DIFFERENCES.find((k) => k.scenario === scenario && k.observation === sim.name);
  return {
    version,
    scenario,
    observation: sim.name,
    sim: sim.value,
    real: r,
    tolerance,
    verdict: agrees ? "agrees" : known ? "known" : "differs",
    note: agrees ? null : (known?.why ?? null),
  };
}

export async function runOn(
  start: () => Promise<ClusterDriver>,
  scenarios: readonly Scenario[],
  shape: ClusterShape,
) {
  const driver = await start();
  const out = new Map<string, Observation[] | Error>();
  try {
    for (const s of scenarios) {
      try {
        out.set(s.name, await s.run(driver, shape));
      } catch (e) {
        out.set(s.name, e instanceof Error ? e : new Error(String(e)));
      }
    }
  } finally {
    await driver.close();
  }
  return out;
}

/** The rows of one version's scenarios: each simulator observation against the real one. */
export function rowsFor(
  version: string,
  scenarios: readonly Scenario[],
  sim: ReadonlyMap<string, Observation[] | Error>,
  real: ReadonlyMap<string, Observation[] | Error>,
): Row[] {
  const rows: Row[] = [];
  for (const s of scenarios) {
    const a = sim.get(s.name);
    const b = real.get(s.name);
    if (a instanceof Error || b instanceof Error || a === undefined || b === undefined) {
      rows.push({
        version,
        scenario: s.name,
        observation: "scenario ran",
        sim: a instanceof Error ? a.message : true,
        real: b instanceof Error ? b.message : true,
        tolerance: null,
        verdict: "differs",
        note: null,
      });
      continue;
    }
    for (const o of a)
      rows.push(
        compare(
          version,
          s.name,
          o,
          b.find((x) => x.name === o.name),
        ),
      );
  }
  return rows;
}

export async function runFidelity(
  versions: readonly string[],
  only: string | null,
  progress: (line: string) => void = () => undefined,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const version of versions) {
    for (const kind of ["base", "eager", "compatible", "mixed"] as const) {
      const scenarios = SCENARIOS.filter(
        (s) => s.shape === kind && (only === null || only.split(",").includes(s.name)),
      );
      if (scenarios.length === 0) continue;
      const shape = shapeFor(kind, version);
      if (kind === "mixed" && (shape.alsoVersions ?? []).length === 0) continue;
      progress(`${version} ${kind}: ${scenarios.map((s) => s.name).join(", ")} on the simulator`);
      const sim = await runOn(() => startSimDriver(shape), scenarios, shape);
      progress(`${version} ${kind}: the same on the real lab`);
      const real = await runOn(
        () => startLabDriver(shape, { brokerVersion: shape.alsoVersions?.[0] ?? version }),
        scenarios,
        shape,
      );
      rows.push(...rowsFor(version, scenarios, sim, real));
    }
  }
  return rows;
}

function cell(v: Observation["value"]): string {
  if (v === null) return "—";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(1);
  return String(v);
}

export function renderTable(rows: readonly Row[]): string {
  const head = ["version", "scenario", "observation", "simulator", "real", "agrees?"];
  const body = rows.map((r) => [
    r.version,
    r.scenario,
    r.observation + (r.tolerance === null ? "" : ` (±${r.tolerance})`),
    cell(r.sim),
    cell(r.real),
    r.verdict === "agrees" ? "yes" : r.verdict === "known" ? `known: ${r.note ?? ""}` : "NO",
  ]);
  const lines = [head, head.map(() => "---"), ...body].map((cols) => `| ${cols.join(" | ")} |`);
  return lines.join("\n");
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      kafka: { type: "string" },
      scenario: { type: "string" },
      json: { type: "string" },
      chart: { type: "string" },
      "from-json": { type: "string" },
    },
  });
  if (values.chart !== undefined && !/\.(svg|png)$/.test(values.chart)) {
    process.stderr.write(`fidelity: --chart ${values.chart}: name a .svg or .png file\n`);
    return 2;
  }
  const versions = (values.kafka ?? "3.9.1,4.1.1")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  const only = values.scenario ?? null;
  const unknown = (only ?? "").split(",").filter((n) => n !== "" && !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) {
    process.stderr.write(
      `fidelity: unknown scenario ${unknown.join(", ")} (${SCENARIOS.map((s) => s.name).join(", ")})\n`,
    );
    return 2;
  }
  const from = values["from-json"];
  const rows =
    from === undefined
      ? await runFidelity(versions, only, (l) => process.stderr.write(`fidelity: ${l}\n`))
      : (JSON.parse(await readFile(from, "utf8")) as Row[]);
  process.stdout.write(`${renderTable(rows)}\n`);
  if (values.json) await writeFile(values.json, `${JSON.stringify(rows, null, 2)}\n`);
  if (values.chart !== undefined) {
    const run = [...new Set(rows.map((r) => r.version))].join(", ");
    const svg = fidelityChartSvg(
      rows,
      `npm run fidelity, Kafka ${run}: the band is the tolerance around the simulator`,
    );
    await writeFile(values.chart, values.chart.endsWith(".png") ? svgToPng(svg) : svg);
    process.stderr.write(`fidelity: chart written to ${values.chart}\n`);
  }
  const differs = rows.filter((r) => r.verdict === "differs");
  process.stdout.write(
    `\n${rows.length - differs.length} of ${rows.length} observations agree or are known differences; ${differs.length} differ\n`,
  );
  return differs.length === 0 ? 0 : 1;
}

if (process.argv[1]?.endsWith("run-fidelity.ts")) {
  // Ctrl-C or SIGTERM: exit, and the lab's exit hook ends every JVM it started.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`fidelity: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
