import { previewRollout } from "../../../usecases/preview-rollout.js";
import type { Command } from "../../command-grammar.js";
import { renderPlanMessage } from "../../views/render-plan-message.js";
import { renderPreviewRefusal } from "../../views/render-rollout-refusal.js";
import { argumentText } from "./rollout.js";
import type { Answer, SubcommandContext } from "./subcommand.js";

/** `/connect-roll plan <cluster> <version|restart>`: the dry run. */
export async function planSubcommand(
  command: Extract<Command, { kind: "plan" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const result = await previewRollout(ctx.deps.usecases, {
    cluster: command.cluster,
    argument: argumentText(command.argument),
    requester: ctx.caller,
  });
  return {
    reply:
      result.kind === "planned"
        ? renderPlanMessage(result.plan)
        : renderPreviewRefusal(result.reason, ctx.deps.commandName),
  };
}
