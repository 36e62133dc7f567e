import { renderHelp } from "../../views/render-help.js";
import type { Answer, SubcommandContext } from "./subcommand.js";

/** `/connect-roll help`: the grammar. */
export async function helpSubcommand(ctx: SubcommandContext): Promise<Answer> {
  return { reply: renderHelp(ctx.deps.commandName) };
}
