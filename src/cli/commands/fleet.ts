import { hostname } from "node:os";
import { soakStage } from "../../composition/fleet-soak.js";
import { formatProblem } from "../../config/config-problem.js";
import { readEnv } from "../../config/env.js";
import { loadConfigFile } from "../../config/load-config.js";
import type { Config, FleetConfig } from "../../config/schema.js";
import { type FleetProgress, openFleetProgress } from "../../jobs/runner/fleet-progress.js";
import { driveFleet } from "../../usecases/drive-fleet.js";
import { fleetEventLine } from "../../wording/fleet-status-text.js";
import { clusterIo } from "../cluster-io.js";
import { type CliCommand, type CliIo, ExitCode } from "../command.js";
import { createRootLogger } from "../create-logger.js";
import { askStage } from "../fleet-waits.js";
import { oneLine } from "../one-line.js";
import { operatorName } from "../operator-store.js";
import { openRunStore } from "../run-store.js";
import { runCommand, runRollout } from "./run.js";

export const fleetRunCommand: CliCommand = {
  name: "fleet run",
  summary: "roll every cluster of a fleet to a version, stage by stage",
  help: `Usage: connect-roll fleet run [--config FILE] FLEET VERSION [--yes | --approve=KINDS] [--json] [--pace PACE]
       [--timeout D]

Rolls the fleet's stages (fleets.FLEET.stages in the config) in order. The clusters of a stage roll at once, each
exactly as \`connect-roll run CLUSTER VERSION\` would (its own change window, executor, lock, approvals and gate; its
lines marked [cluster], or "cluster" in each --json line). A cluster outside its change window is waited for, not
failed. The next stage starts only when every cluster of the stage succeeded and then kept every task running and
its data moving for fleets.FLEET.soakBetweenMs. Stages after the first need an approval (fleets.FLEET.approvals):
--approve=stage or --yes gives it, a terminal asks, and unattended without it the fleet stops before the stage.

Running the same command again resumes a fleet that stopped: clusters already on the version finish at once
(nothing to do), an interrupted cluster rollout resumes from its checkpoint (with Redis).

Options: as for \`connect-roll run\`, with the approval kind \`stage\`; a cluster's prompts are never asked on the
terminal (the flags answer them), and --timeout bounds each cluster's run.

Exit codes: 0 every stage succeeded; 1 a cluster did not succeed, a soak failed, or a stage was not approved; 2 usage.`,
  options: Object.fromEntries(
    Object.entries(runCommand.options).filter(([name]) => name !== "since" && name !== "chart"),
  ),
  positionals: { min: 2, max: 2, names: ["FLEET", "VERSION"] },
  run: runFleet,
};

async function runFleet(
  values: Record<string, unknown>,
  positionals: readonly string[],
  io: CliIo,
): Promise<number> {
  const [name = "", target = ""] = positionals;
  const loaded = await loadFleet(String(values.config), name, io);
  if (loaded.kind === "error") return fail(io, loaded.message, loaded.code);
  const { config, fleet } = loaded;
  let env: ReturnType<typeof readEnv>;
  try {
    env = readEnv(io.env);
  } catch (e) {
    return fail(io, (e as Error).message, ExitCode.Failed);
  }
  const logger = createRootLogger({ level: "error", pretty: false });
  const opened = await openRunStore(io, env, config, logger);
  if (opened.kind === "error") return fail(io, `the store could not be opened: ${opened.message}`, 1);
  try {
    const started = await openFleetProgress({
      store: opened.store,
      fleet: name,
      stages: fleet.stages,
      target,
      requestedBy: operatorName(),
      owner: `cli:${hostname()}:${process.pid}`,
      lockTtlMs: env.CONNECT_ROLL_LOCK_TTL_MS,
      logger,
      signal: io.signal,
      warn: (line) => io.stderr.write(`connect-roll fleet: WARNING: ${oneLine(line)}\n`),
    });
    if (started.kind !== "ok")
      return fail(io, started.kind === "busy" ? started.message : "the fleet is busy", 1);
    const progress = started.progress;
    try {
      return await rollStages({ values, io, config, fleet, name, target, progress });
    } finally {
      await progress.close();
    }
  } finally {
    opened.redis?.disconnect();
  }
}

interface FleetRun {
  readonly values: Record<string, unknown>;
  readonly io: CliIo;
  readonly config: Config;
  readonly fleet: FleetConfig;
  readonly name: string;
  readonly target: string;
  readonly progress: FleetProgress;
}

/** The fleet's stages through the shared driver, with the terminal's parts: lines, prompts, `run` per cluster. */
async function rollStages(r: FleetRun): Promise<number> {
  const { values, io, config, fleet, name, target, progress } = r;
  const json = values.json === true;
  const approve = typeof values.approve === "string" ? values.approve.split(",").map((s) => s.trim()) : [];
  const rest = approve.filter((k) => k !== "stage" && k !== "");
  const clusterValues = { ...values, approve: rest.length > 0 ? rest.join(",") : undefined };
  const result = await driveFleet({
    config,
    fleet,
    name,
    target,
    progress,
    stagesApproved: values.yes === true || approve.includes("stage"),
    say: (event) =>
      io.stdout.write(
        json
          ? `${JSON.stringify({ kind: "fleet", fleet: name, ...event })}\n`
          : `fleet ${name}: ${fleetEventLine(event)}\n`,
      ),
    approvalHint: "--approve=stage or --yes starts it",
    askStage: (_, label) => askStage(io, `Start ${label} to ${target}?`),
    async rollCluster(_, cluster) {
      const code = await runRollout(clusterValues, [cluster, target], clusterIo(io, cluster, json));
      if (code === ExitCode.Ok) return { kind: "succeeded" };
      return { kind: "failed", detail: `${cluster} (exit ${code})` };
    },
    soak: (stage, signal) =>
      soakStage({
        config,
        fleet,
        stage,
        env: io.env,
        logger: createRootLogger({ level: "error", pretty: false }),
        signal,
      }),
  });
  return result === "succeeded" ? ExitCode.Ok : ExitCode.Failed;
}

type Loaded =
  | { readonly kind: "ok"; readonly config: Config; readonly fleet: FleetConfig }
  | { readonly kind: "error"; readonly message: string; readonly code: number };

export async function loadFleet(file: string, name: string, io: CliIo): Promise<Loaded> {
  try {
    const parsed = await loadConfigFile(file, { env: io.env });
    if (parsed.kind === "invalid") {
      const first = parsed.problems.find((p) => p.severity === "error");
      return {
        kind: "error",
        message: `${file} is not valid: ${first ? formatProblem(first) : "?"}`,
        code: 1,
      };
    }
    const fleet = parsed.config.fleets[name];
    if (!fleet) {
      const known = Object.keys(parsed.config.fleets);
      return {
        kind: "error",
        message: `unknown fleet "${name}" in ${file} (known: ${known.join(", ") || "none; see fleets in the README"})`,
        code: ExitCode.Usage,
      };
    }
    return { kind: "ok", config: parsed.config, fleet };
  } catch (e) {
    return { kind: "error", message: (e as Error).message, code: 1 };
  }
}

function fail(io: CliIo, message: string, code: number): number {
  io.stderr.write(`connect-roll fleet: ${oneLine(message)}\n`);
  return code;
}
