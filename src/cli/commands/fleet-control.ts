import { buildFleetChartData } from "../../chart/fleet-chart-data.js";
import { fleetLockName } from "../../jobs/store/fleet-record.js";
import type { OperatorCommandStore } from "../../jobs/store/store-roles.js";
import { abortFleet } from "../../usecases/fleet-requests.js";
import { fleetRolloutStates } from "../../usecases/read-status.js";
import { fleetAbortedText, fleetRefusalText, fleetStatusLines } from "../../wording/fleet-status-text.js";
import { parseChartFlag, writeChartDataFile } from "../chart-file.js";
import { type CliCommand, type CliIo, ExitCode } from "../command.js";
import { oneLine } from "../one-line.js";
import { openOperatorStore } from "../operator-store.js";

const CONFIG_OPTION = { config: { type: "string", default: "connect-roll.yml" } } as const;

export const fleetStatusCommand: CliCommand = {
  name: "fleet status",
  summary: "a fleet's latest run: every stage and cluster, and whether it is still running",
  help: `Usage: connect-roll fleet status [--config FILE] FLEET [--json]

Reads the fleet's latest run from the bot's Redis (\`fleet run\` records it as it goes): its version, who started it,
each stage's status (pending, awaiting-approval, running, soaking, succeeded, failed, aborted) and each cluster's
(pending, waiting-window, running, succeeded, failed, aborted). A run whose process is gone (the fleet's lock is
free, the run not finished) is shown as stopped, with the command that resumes it (a run started in Slack is taken over
by a bot replica instead).

Options:
  --config FILE   configuration file (default: connect-roll.yml)
  --json          one JSON object: the stored run, and "live" (whether its process holds the fleet's lock now)
  --chart FILE    write the run's timeline chart to FILE (.svg or .png): a lane per cluster, in stage order
  -h, --help      show this help

Exit codes: 0 shown; 1 no run of this fleet on record, or Redis cannot be read; 2 usage error.`,
  options: { ...CONFIG_OPTION, json: { type: "boolean", default: false }, chart: { type: "string" } },
  positionals: { min: 1, max: 1, names: ["FLEET"] },
  async run(values, positionals, io) {
    const fleet = positionals[0] ?? "";
    const chart = parseChartFlag(values.chart);
    if (chart.kind === "usage") {
      io.stderr.write(`connect-roll fleet status: ${chart.message}\n`);
      return ExitCode.Usage;
    }
    return withFleetStore("status", String(values.config), fleet, io, async ({ store, config }) => {
      const run = await store.loadFleetRun(fleet);
      if (run === null) return fail(io, "status", `fleet ${fleet} has no run on record`, ExitCode.Failed);
      const holding = (await store.readLock(fleetLockName(fleet)))?.jobId === run.id;
      const live = run.status !== "running" || holding;
      if (chart.chart !== null) {
        const data = buildFleetChartData(run, await fleetRolloutStates(store, run), Date.now());
        return (await writeChartDataFile(io, "fleet status", chart.chart, data))
          ? ExitCode.Ok
          : ExitCode.Failed;
      }
      if (values.json === true) {
        io.stdout.write(`${JSON.stringify({ ...run, live: holding })}\n`);
        return ExitCode.Ok;
      }
      // A fleet removed from the config since cannot be resumed: no command is offered. One started in Slack is
      // taken over by a bot replica at its next sweep.
      const resume =
        config.fleets[fleet] === undefined || (run.thread ?? null) !== null
          ? null
          : `connect-roll fleet run --config ${String(values.config)} ${run.fleet} ${run.target}`;
      for (const line of fleetStatusLines(run, live, resume)) io.stdout.write(`${line}\n`);
      return ExitCode.Ok;
    });
  },
};

export const fleetAbortCommand: CliCommand = {
  name: "fleet abort",
  summary:
    "abort a fleet's running run: no further stage starts, its running clusters stop before their next restart",
  help: `Usage: connect-roll fleet abort [--config FILE] FLEET

Records an abort on the fleet's running run in the bot's Redis: the run starts no further stage (and stops waiting
for a change window or soaking), and every cluster of the stage now rolling is aborted as \`connect-roll abort CLUSTER\`
would: before its next restart, never with a worker half-done. The request is audited with your user and host.

Options:
  --config FILE   configuration file (default: connect-roll.yml)
  -h, --help      show this help

Exit codes: 0 abort recorded; 1 no running run of this fleet, or Redis cannot be read; 2 usage error.`,
  options: CONFIG_OPTION,
  positionals: { min: 1, max: 1, names: ["FLEET"] },
  async run(values, positionals, io) {
    const fleet = positionals[0] ?? "";
    return withFleetStore("abort", String(values.config), fleet, io, async ({ store, config, operator }) => {
      const answer = await abortFleet(
        { config, store, now: Date.now, authorizer: null },
        { fleet, requester: { kind: "terminal", user: operator }, via: "cli" },
      );
      if (answer.kind === "refused")
        return fail(
          io,
          "abort",
          fleetRefusalText(answer.reason, "connect-roll abort CLUSTER"),
          ExitCode.Failed,
        );
      io.stdout.write(`${fleetAbortedText(answer)}\n`);
      return ExitCode.Ok;
    });
  },
};

type Opened = Extract<Awaited<ReturnType<typeof openOperatorStore>>, { kind: "ok" }>["value"];

async function withFleetStore(
  verb: string,
  file: string,
  fleet: string,
  io: CliIo,
  body: (opened: Opened & { store: OperatorCommandStore }) => Promise<number>,
): Promise<number> {
  const opened = await openOperatorStore(file, io);
  if (opened.kind === "error") return fail(io, verb, opened.message, ExitCode.Failed);
  try {
    const known = Object.keys(opened.value.config.fleets);
    // A fleet removed from the config may still have its last run on record: status shows it, abort needs the config.
    if (opened.value.config.fleets[fleet] === undefined && verb === "abort")
      return fail(
        io,
        verb,
        `unknown fleet "${fleet}" in ${file} (known: ${known.join(", ") || "none"})`,
        ExitCode.Usage,
      );
    return await body(opened.value);
  } catch (e) {
    return fail(io, verb, (e as Error).message, ExitCode.Failed);
  } finally {
    await opened.value.close();
  }
}

function fail(io: CliIo, verb: string, message: string, code: number): number {
  io.stderr.write(`connect-roll fleet ${verb}: ${oneLine(message)}\n`);
  return code;
}
