import { prepareRollback } from "../../../usecases/prepare-rollback.js";
import { noRollbackText } from "../../../wording/refusal-text.js";
import type { Command } from "../../command-grammar.js";
import { escapeMrkdwn } from "../../views/limits.js";
import { notice } from "../../views/notice.js";
import { renderPrepareRefusal } from "../../views/render-rollout-refusal.js";
import { startPrepared } from "./rollout.js";
import type { Answer, SubcommandContext } from "./subcommand.js";

/**
 * `/connect-roll rollback <cluster>`: the cluster's newest upgrade undone, its moved workers back to the version they
 * left, newest move first, through the same gate and thread as any rollout. Refused with the reason when there is
 * nothing to roll back.
 */
export async function rollbackSubcommand(
  command: Extract<Command, { kind: "rollback" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const { deps, caller } = ctx;
  const prepared = await prepareRollback(deps.usecases, { cluster: command.cluster, requester: caller });
  if (prepared.kind === "refused") {
    const reason = prepared.reason;
    return {
      reply:
        reason.kind === "no-rollback"
          ? notice(`Nothing to roll back on ${reason.cluster}`, [escapeMrkdwn(noRollbackText(reason))])
          : renderPrepareRefusal(reason, deps.commandName),
    };
  }
  const { rollback } = prepared.found;
  const version = prepared.rollout.target.version;
  return {
    reply: notice(`Rolling back ${command.cluster} to ${escapeMrkdwn(version)}…`, [
      escapeMrkdwn(
        `${prepared.found.resumes ? "Resuming the rollback of" : "Undoing"} job ${rollback.of} (to ${rollback.from}): ${rollback.workers.join(", ")}, newest move first. Progress will be in a thread in this channel.`,
      ),
    ]),
    after: () =>
      startPrepared(prepared.rollout, { ...ctx, log: ctx.log.child({ cluster: command.cluster }) }),
  };
}
