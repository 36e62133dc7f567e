import { type RolloutStatus, readStatus } from "../../../usecases/read-status.js";
import { createChartPoster } from "../../chart-poster.js";
import { readClusterOverviews } from "../../cluster-overview.js";
import type { Command } from "../../command-grammar.js";
import { renderOverviewMessage } from "../../views/render-overview.js";
import { renderReadRefusal } from "../../views/render-refusal-notices.js";
import { renderChartNotice, renderStatus, statusEntryOf } from "../../views/render-status.js";
import { type Answer, ephemeral, type SubcommandContext } from "./subcommand.js";

/**
 * `/connect-roll status [cluster]`: one cluster's rollout and lock, or every cluster (as the Home tab shows them).
 * With `--chart`, once answered, the running rollout's timeline chart goes to its thread (to the channel the command
 * came from when it has none); whether it could be posted is said to the caller.
 */
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
    case "cluster": {
      const reply = renderStatus(result.rollouts.map(statusEntryOf));
      if (command.chart !== true) return { reply };
      const running = result.rollouts.find((r) => r.state !== null);
      if (running === undefined)
        return { reply: renderChartNotice(reply, { kind: "none", cluster: result.cluster }) };
      return { reply, after: () => postChart(running, ctx) };
    }
  }
}

async function postChart(rollout: RolloutStatus, ctx: SubcommandContext): Promise<void> {
  const { state, job } = rollout;
  if (state === null) return;
  const thread = job.thread;
  const channel = thread?.channel ?? ctx.caller.channelId;
  const poster = createChartPoster({ api: ctx.deps.api, logger: ctx.log });
  const posted = await poster.post({
    channel,
    ...(thread === null ? {} : { threadTs: thread.ts }),
    state,
    now: ctx.deps.usecases.now(),
  });
  const notice = renderChartNotice(
    null,
    posted.kind === "posted"
      ? { kind: "posted", cluster: state.cluster, channel, inThread: thread !== null }
      : { kind: "failed", cluster: state.cluster, why: posted.why },
  );
  await ctx.respond(ephemeral(notice));
}
