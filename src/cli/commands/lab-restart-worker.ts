import { restCall } from "../../lab/lab-rest.js";
import { type CliCommand, ExitCode } from "../command.js";

export const labRestartWorkerCommand: CliCommand = {
  name: "lab restart-worker",
  summary: "restart one lab worker through the lab's control API (the lab config's command executor)",
  help: `Usage: connect-roll lab restart-worker --control URL --worker NAME [--version V] [--exactly-once-support S]

Stops the worker gracefully and starts it again (on version V when given) — what a VM user's restart script
does. Exit 0 once the new JVM has started; 1 when the lab refused or did not answer.

Options:
  --control URL   the lab's control URL (printed by 'connect-roll lab')
  --worker NAME   the worker (worker-1, …)
  --version V     the Kafka version to start it on
  --exactly-once-support S  start it with exactly.once.source.support=S: disabled | preparing | enabled
  -h, --help      show this help`,
  options: {
    control: { type: "string" },
    worker: { type: "string" },
    version: { type: "string" },
    "exactly-once-support": { type: "string" },
  },
  positionals: { min: 0, max: 0, names: [] },
  async run(values, _positionals, io) {
    const control = values.control;
    const worker = values.worker;
    if (typeof control !== "string" || !/^http:\/\/127\.0\.0\.1:\d+\/?$/.test(control)) {
      io.stderr.write(
        "connect-roll lab restart-worker: --control needs the lab's control URL (http://127.0.0.1:PORT)\n",
      );
      return ExitCode.Usage;
    }
    if (typeof worker !== "string" || !/^worker-\d{1,3}$/.test(worker)) {
      io.stderr.write("connect-roll lab restart-worker: --worker needs a worker name such as worker-1\n");
      return ExitCode.Usage;
    }
    const version = typeof values.version === "string" && values.version !== "" ? values.version : undefined;
    const eos = values["exactly-once-support"];
    if (eos !== undefined && !["disabled", "preparing", "enabled"].includes(String(eos))) {
      io.stderr.write(
        `connect-roll lab restart-worker: --exactly-once-support ${String(eos)}: use disabled, preparing or enabled\n`,
      );
      return ExitCode.Usage;
    }
    const params = new URLSearchParams();
    if (version !== undefined) params.set("version", version);
    if (typeof eos === "string") params.set("exactlyOnceSupport", eos);
    const query = params.size === 0 ? "" : `?${params.toString()}`;
    const url = `${control.replace(/\/$/, "")}/sim/workers/${encodeURIComponent(worker)}/restart${query}`;
    const reply = await restCall(url, "POST", undefined, 900_000);
    if (reply === null) {
      io.stderr.write(`connect-roll lab restart-worker: the lab at ${control} did not answer\n`);
      return ExitCode.Failed;
    }
    if (reply.status !== 200) {
      const error = (reply.body as { error?: string } | null)?.error ?? `HTTP ${reply.status}`;
      io.stderr.write(`connect-roll lab restart-worker: ${error}\n`);
      return ExitCode.Failed;
    }
    io.stdout.write(`restarted ${worker}${version === undefined ? "" : ` on ${version}`}\n`);
    return ExitCode.Ok;
  },
};
