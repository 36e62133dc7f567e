#!/usr/bin/env node
import { createRequire } from "node:module";
import { abortCommand } from "./cli/commands/abort.js";
import { configCheckCommand } from "./cli/commands/config-check.js";
import { demoCommand } from "./cli/commands/demo.js";
import { fleetRunCommand } from "./cli/commands/fleet.js";
import { fleetAbortCommand, fleetStatusCommand } from "./cli/commands/fleet-control.js";
import { fleetPlanCommand } from "./cli/commands/fleet-plan.js";
import { labCommand, labFetchCommand } from "./cli/commands/lab.js";
import { labRestartWorkerCommand } from "./cli/commands/lab-restart-worker.js";
import { planCommand } from "./cli/commands/plan.js";
import { rollbackCommand } from "./cli/commands/rollback.js";
import { runCommand } from "./cli/commands/run.js";
import { serveCommand } from "./cli/commands/serve.js";
import { simCommand } from "./cli/commands/sim.js";
import { statusCommand } from "./cli/commands/status.js";
import { unlockCommand } from "./cli/commands/unlock.js";
import { runCli } from "./cli/main.js";
import { exitWhenIdle, installSignalHandlers } from "./cli/process-signals.js";

const require = createRequire(import.meta.url);

function packageVersion(): string {
  for (const candidate of ["../package.json", "../../package.json"]) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === "connect-roll" && pkg.version) return pkg.version;
    } catch {
      // try the next location (src/ under tsx, dist/ when built)
    }
  }
  return "0.0.0";
}

const signal = installSignalHandlers(process);

const code = await runCli(
  {
    version: packageVersion(),
    commands: [
      serveCommand,
      runCommand,
      rollbackCommand,
      fleetPlanCommand,
      fleetRunCommand,
      fleetStatusCommand,
      fleetAbortCommand,
      planCommand,
      simCommand,
      labCommand,
      labFetchCommand,
      labRestartWorkerCommand,
      statusCommand,
      abortCommand,
      unlockCommand,
      configCheckCommand,
      demoCommand,
    ],
  },
  process.argv.slice(2),
  {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal,
  },
);
process.exitCode = code;
exitWhenIdle(process, code);
