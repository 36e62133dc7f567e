import { readStatus } from "../../../usecases/read-status.js";
import { readClusterOverviews } from "../../cluster-overview.js";
import type { Command } from "../../command-grammar.js";
import { renderOverviewMessage } from "../../views/render-overview.js";
import { renderReadRefusal } from "../../views/render-refusal-notices.js";
import { renderStatus, statusEntryOf } from "../../views/render-status.js";
import type { Answer, SubcommandContext } from "./subcommand.js";

/** `/connect-roll status [cluster]`: one cluster's rollout and lock, or every cluster (as the Home tab shows them). */
export async function statusSubcommand(
  command: Extract<Command, { kind: "status" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const { usecases } = ctx.deps;
  const result = await readStatus(usecases, { cluster: command.cluster, requester: ctx.caller });
  switch (result.kind) {
    case "refused":
      return { reply: renderReadRefusal(result.reason, ctx.deps.commandName) };
    case "all-clusters": {
      const now = usecases.now();
      const overviews = await readClusterOverviews({ config: usecases.config, store: usecases.store, now });
      return { reply: renderOverviewMessage(overviews, now) };
    }
    case "cluster":
      return { reply: renderStatus(result.rollouts.map(statusEntryOf)) };
  }
}
