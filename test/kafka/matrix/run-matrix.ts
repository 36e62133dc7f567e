import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { parseMatrixArgs } from "./matrix-plan.js";
import { type PathResult, pathLine, type VersionResult, versionLine } from "./matrix-report.js";
import { runPath } from "./upgrade-path-run.js";
import { runVersion } from "./version-run.js";

/**
 * `npm run test:kafka:matrix -- [--kafka V,V…] [--paths [all|FROM>TO,…]] [--json FILE]`: each Kafka version on a real
 * lab (plan and the reader, every metric series, bounces, fidelity scenarios, a rolling restart), then the upgrade
 * paths as real rollouts. One line per version and per path; exit 0 only when all pass. Every JVM it started is
 * stopped (the lab closes its process groups; Ctrl-C exits and the lab's exit hook kills what is left).
 */
function javaVersion(): string {
  const probe = spawnSync("java", ["-version"], { encoding: "utf8" });
  return `${probe.stderr ?? ""}${probe.stdout ?? ""}`.split("\n")[0]?.trim() ?? "unknown";
}

async function main(): Promise<number> {
  const args = parseMatrixArgs(process.argv.slice(2));
  if (typeof args === "string") {
    process.stderr.write(`test:kafka:matrix: ${args}\n`);
    return 2;
  }
  const java = javaVersion().replace(/^openjdk version "([^"]+)".*/, "OpenJDK $1");
  const machine = `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`;
  const started = Date.now();
  process.stdout.write(`matrix ${new Date(started).toISOString().slice(0, 10)} · ${machine} · ${java}\n`);
  const progress = (line: string) => process.stderr.write(`matrix: ${line}\n`);
  const versions: VersionResult[] = [];
  for (const v of args.versions) {
    const r = await runVersion(v, progress);
    versions.push(r);
    process.stdout.write(`${versionLine(r)}\n`);
  }
  const paths: PathResult[] = [];
  for (const p of args.paths) {
    const r = await runPath(p, progress);
    paths.push(r);
    process.stdout.write(`${pathLine(r)}\n`);
  }
  const wallMs = Date.now() - started;
  const passed = [...versions, ...paths].filter((r) => r.pass).length;
  const total = versions.length + paths.length;
  process.stdout.write(
    `\n${passed} passed, ${total - passed} failed (wall time ${(wallMs / 60_000).toFixed(1)} min)\n`,
  );
  if (args.json !== null)
    await writeFile(
      args.json,
      `${JSON.stringify({ date: new Date(started).toISOString(), machine, java, wallMs, versions, paths }, null, 2)}\n`,
    );
  return passed === total ? 0 : 1;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`test:kafka:matrix: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
