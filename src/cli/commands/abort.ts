import { type CliCommand, ExitCode } from "../command.js";
import { openOperatorStore, unknownClusterMessage } from "../operator-store.js";

export const abortCommand: CliCommand = {
  name: "abort",
  summary: "abort a cluster's running rollout before its next restart (as /connect-roll abort)",
  help: `Usage: connect-roll abort [--config FILE] CLUSTER

Records an abort on the cluster's unfinished rollout in the bot's Redis, as \`/connect-roll abort\` does: the
replica running it stops before the next restart (a worker is never left half-done) and answers a waiting
approval prompt with "abort". The request is audited with your user and host.

Options:
  --config FILE   configuration file (default: connect-roll.yml)
  -h, --help      show this help

Exit codes: 0 abort recorded; 1 nothing to abort, or Redis cannot be read; 2 usage error.`,
  options: { config: { type: "string", default: "connect-roll.yml" } },
  positionals: { min: 1, max: 1, names: ["CLUSTER"] },
  async run(values, positionals, io) {
    const cluster = positionals[0] ?? "";
    const opened = await openOperatorStore(String(values.config), io);
    if (opened.kind === "error") {
      io.stderr.write(`connect-roll abort: ${opened.message}\n`);
      return ExitCode.Failed;
    }
    const { config, store, operator } = opened.value;
    try {
      const unknown = unknownClusterMessage(config, cluster);
      if (unknown) {
        io.stderr.write(`connect-roll abort: ${unknown}\n`);
        return ExitCode.Usage;
      }
      const job = (await store.listJobs({ cluster, unfinishedOnly: true })).at(-1);
      if (!job) {
        io.stderr.write(`connect-roll abort: no rollout of ${cluster} is running; see connect-roll status\n`);
        return ExitCode.Failed;
      }
      const at = Date.now();
      const result = await store.requestControl(job.id, { action: "abort", by: operator, at });
      if (result.kind === "finished") {
        io.stderr.write(`connect-roll abort: the rollout of ${cluster} is already over (${result.status})\n`);
        return ExitCode.Failed;
      }
      if (job.pendingApproval !== null)
        await store.decide(job.id, job.pendingApproval.id, { decision: "abort", by: operator, at });
      await store.appendAudit(job.id, {
        at,
        actor: operator,
        action: "abort-requested",
        detail: `${cluster} (cli)`,
      });
      io.stdout.write(
        `abort requested for ${cluster} (job ${job.id}): no further worker will be restarted${job.pendingApproval ? `; the ${job.pendingApproval.kind} prompt was answered "abort"` : ""}\n`,
      );
      return ExitCode.Ok;
    } finally {
      await opened.value.close();
    }
  },
};
