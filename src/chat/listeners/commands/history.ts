import { readHistory } from "../../../usecases/read-status.js";
import type { Command } from "../../command-grammar.js";
import { renderHistory } from "../../views/render-history.js";
import { renderReadRefusal } from "../../views/render-refusal-notices.js";
import type { Answer, SubcommandContext } from "./subcommand.js";

/** `/connect-roll history <cluster>`: its last finished rollouts. */
export async function historySubcommand(
  command: Extract<Command, { kind: "history" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const result = await readHistory(ctx.deps.usecases, { cluster: command.cluster, requester: ctx.caller });
  return {
    reply:
      result.kind === "history"
        ? renderHistory(result.entries, result.cluster)
        : renderReadRefusal(result.reason, ctx.deps.commandName),
  };
}
