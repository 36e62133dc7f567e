import { isWithinChangeWindow } from "../../config/change-window.js";
import { formatDuration } from "../../core/format-duration.js";
import { accessOf } from "../../usecases/access.js";
import { stageNeedsApproval } from "../../usecases/fleet-stages.js";
import { clusterIo } from "../cluster-io.js";
import { type CliCommand, type CliIo, ExitCode, type ParsedValues } from "../command.js";
import { loadFleet } from "./fleet.js";
import { planCommand } from "./plan.js";

export const fleetPlanCommand: CliCommand = {
  name: "fleet plan",
  summary: "dry run of a fleet: its stages, each cluster's change window and plan",
  help: `Usage: connect-roll fleet plan [--config FILE] FLEET VERSION [--json] [--pace safe|window|rotate]

Prints the fleet's stages in order (which need an approval, the soak between them), whether each cluster's change
window is open now (or when it opens), and each cluster's plan exactly as \`connect-roll plan CLUSTER VERSION\` prints
it, marked [cluster] (with --json, each plan line gets a "cluster" field). Nothing is restarted.

Exit codes: 0 every cluster planned; 1 a cluster could not be read or planned; 2 usage error.`,
  options: planCommand.options,
  positionals: { min: 2, max: 2, names: ["FLEET", "VERSION"] },
  run: planFleet,
};

async function planFleet(values: ParsedValues, positionals: readonly string[], io: CliIo): Promise<number> {
  const [name = "", target = ""] = positionals;
  const loaded = await loadFleet(String(values.config), name, io);
  if (loaded.kind === "error") {
    io.stderr.write(`connect-roll fleet: ${loaded.message}\n`);
    return loaded.code;
  }
  const { config, fleet } = loaded;
  const json = values.json === true;
  let code: number = ExitCode.Ok;
  for (const [i, stage] of fleet.stages.entries()) {
    const windows = stage.map((c) => {
      const state = isWithinChangeWindow(accessOf(config, config.clusters[c]).changeWindows, Date.now());
      return state.kind === "open"
        ? { cluster: c, window: "open" }
        : { cluster: c, window: `opens ${state.next}` };
    });
    const approval = stageNeedsApproval(fleet, i);
    const soak = i + 1 < fleet.stages.length ? fleet.soakBetweenMs : 0;
    io.stdout.write(
      json
        ? `${JSON.stringify({ kind: "fleet", fleet: name, event: "stage", stage: i + 1, clusters: stage, approval, soakMs: soak, windows })}\n`
        : `fleet ${name}: stage ${i + 1}/${fleet.stages.length}: ${windows.map((w) => `${w.cluster} (window ${w.window})`).join(", ")}${approval ? "; approved before it starts" : ""}${soak > 0 ? `; then a ${formatDuration(soak)} soak` : ""}\n`,
    );
    for (const c of stage) {
      const planned = await planCommand.run(values, [c, target], clusterIo(io, c, json));
      if (planned !== ExitCode.Ok) code = planned === ExitCode.Usage ? ExitCode.Usage : ExitCode.Failed;
    }
  }
  return code;
}
