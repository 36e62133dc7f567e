import { rolloutSettingsFor } from "../../composition/compose-cluster.js";
import { previewPlan } from "../../composition/preview-plan.js";
import { toPlanJson } from "../../core/plan/plan-json.js";
import { isRolloutPace } from "../../core/plan/plan-types.js";
import { renderPlanText } from "../../core/plan/render-plan-text.js";
import { loadClusterContext, preflightContext } from "../cluster-context.js";
import { type CliCommand, ExitCode } from "../command.js";
import { createRootLogger } from "../create-logger.js";
import { oneLine } from "../one-line.js";
import { planNotes } from "../plan-notes.js";

export const planCommand: CliCommand = {
  name: "plan",
  summary: "dry run: order, leader, protocol per step, eager windows, predicted disruption, findings",
  help: `Usage: connect-roll plan [--config FILE] CLUSTER VERSION [--json] [--pace safe|window|rotate]

Reads the cluster once (REST and metrics) and prints the rollout plan without restarting anything:
the order with a reason per step (followers first, the group leader last), the protocol the group negotiates
after each step, eager (stop-the-world) and compatible windows, the predicted task downtime and moves per step,
delay advice and preflight findings (info / warn / block).

VERSION is a version (3.7, v3.7.1) mapped through the cluster's \`versions\` settings, or "restart".

Options:
  --config FILE      configuration file (default: connect-roll.yml)
  --json             one JSON object (stable fields: cluster, target, steps, eagerWindows, findings)
  --pace PACE        safe, window or rotate: override the cluster's pace
  -h, --help         show this help`,
  options: {
    config: { type: "string", default: "connect-roll.yml" },
    json: { type: "boolean", default: false },
    pace: { type: "string" },
  },
  positionals: { min: 2, max: 2, names: ["CLUSTER", "VERSION"] },
  async run(values, positionals, io) {
    const [clusterName = "", argument = ""] = positionals;
    const pace = values.pace;
    if (pace !== undefined && !isRolloutPace(pace)) {
      io.stderr.write(`connect-roll plan: --pace must be safe, window or rotate, got "${String(pace)}"\n`);
      return ExitCode.Usage;
    }
    const ctx = await loadClusterContext(String(values.config), clusterName, argument, io.env);
    if (ctx.kind === "error") {
      io.stderr.write(`connect-roll plan: ${oneLine(ctx.message)}\n`);
      return ctx.exitCode;
    }
    const logger = createRootLogger({ level: io.env.LOG_LEVEL ?? "warn", pretty: false });
    const preflight = await preflightContext(ctx, io, logger, false);
    if (preflight.kind === "error") {
      io.stderr.write(`connect-roll plan: cannot read ${ctx.name}: ${preflight.problems.join("; ")}\n`);
      return ExitCode.Failed;
    }
    const { reader } = preflight;
    await preflight.restarter.close();
    try {
      const settings = rolloutSettingsFor(ctx.cluster, pace === undefined ? {} : { pace });
      const planned = await previewPlan(reader, ctx.target, settings, io.signal);
      const plan = {
        ...planned,
        findings: [...planned.findings, ...planNotes(planned, settings.planPolicy, settings.delayMs)],
      };
      io.stdout.write(
        values.json === true ? `${JSON.stringify(toPlanJson(plan))}\n` : `${renderPlanText(plan)}\n`,
      );
      return ExitCode.Ok;
    } finally {
      await reader.close();
    }
  },
};
