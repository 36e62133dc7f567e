import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { stringify } from "yaml";
import { runCommand } from "../../src/cli/commands/run.js";
import { runCli } from "../../src/cli/main.js";
import { checkoutRestartCommand, labClusterConfig } from "../../src/composition/lab-cluster-config.js";
import { startLab } from "../../src/lab/start-lab.js";

/**
 * `npm run charts:lab`: the README's real rollout timeline, docs/charts/rollout-lab.svg. A real lab (a KRaft broker
 * and 4 Connect workers on 3.9.1, 3 source connectors and a sink, 2 tasks each, delay 15 s; Java 17+, jars through
 * Maven) is upgraded to 4.1.1 by `connect-roll run --yes --chart`, then every JVM is stopped. About three minutes.
 */
const OUT = join("docs", "charts", "rollout-lab.svg");
const DELAY_MS = 15_000;

const lab = await startLab({
  kafka: "3.9.1",
  brokerVersion: "4.1.1",
  workers: 4,
  connectors: 3,
  sinks: 1,
  tasksPerConnector: 2,
  delayMs: DELAY_MS,
  sessionTimeoutMs: 6_000,
  onProgress: (line) => process.stderr.write(`  ${line}\n`),
});
const dir = mkdtempSync(join(tmpdir(), "connect-roll-lab-chart-"));
try {
  const config = join(dir, "connect-roll.yml");
  const cluster = labClusterConfig({
    workers: lab.workers,
    controlUrl: lab.controlUrl,
    delayMs: DELAY_MS,
    sessionTimeoutMs: 6_000,
    restartCommand: checkoutRestartCommand(lab.controlUrl),
    pollIntervalMs: 1_000,
  });
  writeFileSync(config, stringify({ clusters: { lab: cluster } }));
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (c: Buffer) => process.stdout.write(c));
  stderr.on("data", (c: Buffer) => process.stderr.write(c));
  const code = await runCli(
    { version: "0.0.0", commands: [runCommand] },
    ["run", "--config", config, "lab", "4.1.1", "--yes", "--chart", OUT],
    {
      stdout,
      stderr,
      stdin: new PassThrough(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "error" },
      signal: AbortSignal.timeout(900_000),
    },
  );
  if (code !== 0) throw new Error(`connect-roll run exited ${code}`);
  console.log(`written ${OUT}`);
} finally {
  await lab.close();
  rmSync(dir, { recursive: true, force: true });
}
