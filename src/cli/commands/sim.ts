import { writeFile } from "node:fs/promises";
import { stringify } from "yaml";
import { simClusterConfig } from "../../composition/sim-cluster-config.js";
import { isAppError } from "../../core/errors.js";
import { parseSimFlags } from "../../sim/sim-options.js";
import { startSim } from "../../sim/start-sim.js";
import { type CliCommand, ExitCode } from "../command.js";

const STRING_FLAGS = [
  "workers",
  "connectors",
  "tasks-per-connector",
  "version",
  "delay-ms",
  "restart-ms",
  "port",
  "seed",
  "speed",
  "host",
  "write-config",
  "cluster-name",
] as const;

export const simCommand: CliCommand = {
  name: "sim",
  summary: "start a simulated Kafka Connect cluster (REST, metrics, control API)",
  help: `Usage: connect-roll sim [--workers N] [--connectors N] [--tasks-per-connector N] [--version V]
                        [--delay-ms D] [--restart-ms R] [--port P] [--virtual-time] [--seed S] [--speed X]
                        [--write-config FILE] [--cluster-name NAME]

Starts a simulated Connect cluster that behaves like the real one on restarts (scheduled rebalance delay,
leader, protocol negotiation, status store, metrics) and prints one JSON line: the worker REST URLs, metrics
URLs and the control URL. Runs until interrupted (Ctrl-C).

Options:
  --workers N              workers (default 6)
  --connectors N           connectors (default 12)
  --tasks-per-connector N  tasks per connector (default 4)
  --version V              Kafka version of every worker (default 3.7.1)
  --delay-ms D             scheduled.rebalance.max.delay.ms (default 300000)
  --restart-ms R           how long a worker takes to start (default 20000)
  --port P                 control API port (default: any free port)
  --virtual-time           time advances only through POST /sim/advance?ms=N
  --seed S                 seed of the deterministic simulation (default 1)
  --speed X                real-time speed factor (default 1)
  --write-config FILE      also write a connect-roll config for this cluster (executor: sim)
  --cluster-name NAME      the cluster's name in that config (default sim)
  -h, --help               show this help`,
  options: {
    ...Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: "string" as const }])),
    "virtual-time": { type: "boolean" },
  },
  positionals: { min: 0, max: 0, names: [] },
  async run(values, _positionals, io) {
    const argv: string[] = [];
    for (const f of STRING_FLAGS) if (typeof values[f] === "string") argv.push(`--${f}`, String(values[f]));
    if (values["virtual-time"] === true) argv.push("--virtual-time");
    let flags: ReturnType<typeof parseSimFlags>;
    try {
      flags = parseSimFlags(argv);
    } catch (e) {
      if (isAppError(e)) {
        io.stderr.write(`connect-roll sim: ${e.message.split("\n").join("; ")}\n`);
        return ExitCode.Usage;
      }
      throw e;
    }
    const sim = await startSim({ ...flags.options, controlPort: flags.controlPort });
    // In real time the group elects its leader with the first rebalance: wait for it, so the line names it.
    for (let i = 0; i < 400 && sim.cluster.state().leader === null && !io.signal.aborted; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const state = sim.cluster.state();
    // The config is written before the JSON line: whoever waits for the line can use the file at once.
    if (flags.writeConfig !== null) {
      const speed = flags.options.speed ?? 1;
      const cluster = simClusterConfig({
        clusterName: flags.clusterName,
        workers: sim.workers,
        controlUrl: sim.controlUrl,
        delayMs: Math.round((flags.options.delayMs ?? 300_000) / speed),
        restartMs: Math.round((flags.options.restartMs ?? 20_000) / speed),
      });
      const header = `# Written by connect-roll sim for the simulated cluster at ${sim.controlUrl}.\n# Check: connect-roll config check --config ${flags.writeConfig}\n`;
      await writeFile(flags.writeConfig, header + stringify({ clusters: { [flags.clusterName]: cluster } }));
    }
    io.stdout.write(
      `${JSON.stringify({
        controlUrl: sim.controlUrl,
        virtualTime: flags.options.virtualTime === true,
        leader: state.leader,
        workers: sim.workers.map((w) => ({
          name: w.name,
          url: w.url,
          metricsUrl: w.metricsUrl,
          workerId: w.workerId,
          version: state.workers.find((x) => x.name === w.name)?.version,
        })),
      })}\n`,
    );
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      io.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await sim.close();
    return ExitCode.Ok;
  },
};
