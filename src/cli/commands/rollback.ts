import { isAppError } from "../../core/errors.js";
import { findRollback } from "../../usecases/prepare-rollback.js";
import { noRollbackText, unknownClusterText } from "../../wording/refusal-text.js";
import { type CliCommand, type CliIo, ExitCode } from "../command.js";
import { oneLine } from "../one-line.js";
import { openOperatorStore } from "../operator-store.js";
import { runCommand, runRollout } from "./run.js";

export const rollbackCommand: CliCommand = {
  name: "rollback",
  summary: "return every worker the cluster's last upgrade moved to the version it left, newest first",
  help: `Usage: connect-roll rollback [--config FILE] CLUSTER [--yes | --approve=KINDS] [--json] [--pace safe|window]
       [--chart FILE.svg|FILE.png] [--timeout D]

Reads the cluster's newest rollout from the bot's Redis (REDIS_URL or redis.url) and undoes it: every worker it
restarted onto its target goes back to the version its plan recorded for that worker, the newest move first, one
worker at a time, each followed by the settle gate, exactly as \`run\` does (same approvals, flags, exit codes and
summary). Workers that rollout did not move are left as they are; one already back on the old version is skipped.
As /connect-roll rollback CLUSTER in Slack.

Refused, with the reason, when the newest rollout is still running (abort it first), was a plain restart, moved no
worker, did not read a worker's version before its step, or moved workers from different versions. An interrupted
rollback is resumed by running this command again.

Options: as for \`connect-roll run\` (see connect-roll run --help), without VERSION and --since.`,
  options: Object.fromEntries(Object.entries(runCommand.options).filter(([name]) => name !== "since")),
  positionals: { min: 1, max: 1, names: ["CLUSTER"] },
  run: rollbackCluster,
};

async function rollbackCluster(
  values: Record<string, unknown>,
  positionals: readonly string[],
  io: CliIo,
): Promise<number> {
  const cluster = positionals[0] ?? "";
  const opened = await openOperatorStore(String(values.config), io);
  if (opened.kind === "error") return fail(io, opened.message, ExitCode.Failed);
  const { config, store } = opened.value;
  let found: Awaited<ReturnType<typeof findRollback>>;
  try {
    if (!Object.hasOwn(config.clusters, cluster))
      return fail(io, unknownClusterText(cluster, Object.keys(config.clusters)), ExitCode.Usage);
    found = await findRollback(store, cluster);
  } catch (e) {
    if (!isAppError(e)) throw e;
    return fail(io, e.message, ExitCode.Failed);
  } finally {
    await opened.value.close();
  }
  if (found.kind === "refused") return fail(io, noRollbackText(found.reason), ExitCode.Failed);
  const { rollback } = found;
  io.stderr.write(
    `connect-roll rollback: ${found.resumes ? "resuming the rollback of" : "rolling back"} job ${rollback.of} (to ${rollback.from}): ${rollback.workers.join(", ")} back to ${found.argument.replace(/^v/, "")}, newest move first\n`,
  );
  return runRollout(values, [cluster, found.argument], io, found);
}

function fail(io: CliIo, message: string, code: number): number {
  io.stderr.write(`connect-roll rollback: ${oneLine(message)}\n`);
  return code;
}
