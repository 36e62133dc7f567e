import { controlRollout } from "../../usecases/control-rollout.js";
import { controlRefusalText } from "../../wording/refusal-text.js";
import { type CliCommand, ExitCode } from "../command.js";
import { openOperatorStore } from "../operator-store.js";

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
      // The same use-case as `/connect-roll abort`, for a terminal user: no Slack access lists apply.
      const result = await controlRollout(
        { config, store, now: Date.now, authorizer: null },
        { action: "abort", cluster, requester: { kind: "terminal", user: operator } },
      );
      if (result.kind === "refused") {
        io.stderr.write(`connect-roll abort: ${controlRefusalText(result.reason)}\n`);
        return result.reason.kind === "unknown-cluster" ? ExitCode.Usage : ExitCode.Failed;
      }
      await store.appendAudit(result.jobId, {
        at: result.at,
        actor: operator,
        action: "abort-requested",
        detail: `${cluster} (cli)`,
      });
      io.stdout.write(
        `abort requested for ${cluster} (job ${result.jobId}): no further worker will be restarted${result.answeredPrompt ? `; the ${result.answeredPrompt} prompt was answered "abort"` : ""}\n`,
      );
      return ExitCode.Ok;
    } finally {
      await opened.value.close();
    }
  },
};
