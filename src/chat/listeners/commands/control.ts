import { controlRollout } from "../../../usecases/control-rollout.js";
import type { Command } from "../../command-grammar.js";
import { renderControlAnswer } from "../../views/render-control-answer.js";
import type { Answer, SubcommandContext } from "./subcommand.js";

/**
 * `/connect-roll pause|resume|abort <cluster>`: one listener for the three, as they are one use-case and one view
 * and differ only in the action they record.
 */
export async function controlSubcommand(
  command: Extract<Command, { kind: "pause" | "resume" | "abort" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const result = await controlRollout(ctx.deps.usecases, {
    action: command.kind,
    cluster: command.cluster,
    requester: ctx.caller,
  });
  return { reply: renderControlAnswer(result, ctx.deps.commandName) };
}
