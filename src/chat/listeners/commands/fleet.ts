import { buildFleetChartData } from "../../../chart/fleet-chart-data.js";
import type { FleetRunRecord } from "../../../jobs/store/fleet-record.js";
import { abortFleet, checkFleetStart } from "../../../usecases/fleet-requests.js";
import { fleetRolloutStates, readFleetStatus } from "../../../usecases/read-status.js";
import { fleetAbortedText, fleetRefusalText } from "../../../wording/fleet-status-text.js";
import { createChartPoster } from "../../chart-poster.js";
import type { Command } from "../../command-grammar.js";
import { escapeMrkdwn } from "../../views/limits.js";
import { notice } from "../../views/notice.js";
import { renderFleetStatus } from "../../views/render-fleet-status.js";
import { renderReadRefusal, renderUnknownFleet } from "../../views/render-refusal-notices.js";
import { argumentText } from "./rollout.js";
import { type Answer, ephemeral, type SubcommandContext } from "./subcommand.js";

/** `/connect-roll fleet status <fleet>`: the fleet's latest run, whether run from Slack or a terminal. */
export async function fleetStatusSubcommand(
  command: Extract<Command, { kind: "fleet-status" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const result = await readFleetStatus(ctx.deps.usecases, { fleet: command.fleet, requester: ctx.caller });
  if (result.kind === "fleet") {
    const reply = renderFleetStatus(result.fleet, result.run, result.live, ctx.deps.commandName);
    const run = result.run;
    if (command.chart !== true || run === null) return { reply };
    return { reply, after: () => postFleetChart(run, ctx) };
  }
  return {
    reply:
      result.reason.kind === "unknown-fleet"
        ? renderUnknownFleet(result.reason)
        : renderReadRefusal(result.reason, ctx.deps.commandName),
  };
}

/**
 * `/connect-roll fleet <fleet> <version>`: every check for every cluster first (the answer is a refusal or
 * "starting…"); then the fleet's parent message is posted in the channel and the fleet runs in the background.
 */
export async function fleetStartSubcommand(
  command: Extract<Command, { kind: "fleet-start" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const { deps, caller } = ctx;
  const argument = argumentText(command.argument);
  const checked = await checkFleetStart(deps.usecases, { fleet: command.fleet, argument, requester: caller });
  if (checked.kind === "refused")
    return {
      reply:
        checked.reason.kind === "unknown-fleet"
          ? renderUnknownFleet(checked.reason)
          : notice("Fleet not started", [escapeMrkdwn(fleetRefusalText(checked.reason, ""))]),
    };
  return {
    reply: notice(`Starting fleet ${escapeMrkdwn(command.fleet)} → ${escapeMrkdwn(argument)}…`, [
      "Its thread follows each stage; each cluster's rollout has a thread of its own.",
    ]),
    after: async () => {
      const started = await deps.fleets.start({
        name: checked.name,
        fleet: checked.fleet,
        target: checked.target,
        requestedBy: caller.userId,
        channel: caller.channelId,
      });
      if (started.kind === "not-started")
        await ctx
          .respond(ephemeral(notice("Fleet not started", [escapeMrkdwn(started.why)])))
          .catch((err: unknown) => ctx.log.error({ err }, "could not tell the user"));
      else ctx.log.info({ runId: started.runId, fleet: command.fleet }, "fleet started");
    },
  };
}

/** `/connect-roll fleet abort <fleet>`: no further stage; each of its clusters rolling now stops before its next restart. */
export async function fleetAbortSubcommand(
  command: Extract<Command, { kind: "fleet-abort" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const answer = await abortFleet(ctx.deps.usecases, {
    fleet: command.fleet,
    requester: ctx.caller,
    via: "slack",
  });
  if (answer.kind === "refused")
    return {
      reply:
        answer.reason.kind === "unknown-fleet"
          ? renderUnknownFleet(answer.reason)
          : notice("Nothing aborted", [
              escapeMrkdwn(fleetRefusalText(answer.reason, `${ctx.deps.commandName} abort <cluster>`)),
            ]),
    };
  return { reply: notice("Fleet abort requested", [escapeMrkdwn(fleetAbortedText(answer))]) };
}

/** The fleet run's timeline chart, in its thread (a fleet run in Slack) or here; whether it was posted is said. */
async function postFleetChart(run: FleetRunRecord, ctx: SubcommandContext): Promise<void> {
  const { usecases } = ctx.deps;
  const states = await fleetRolloutStates(usecases.store, run);
  const thread = run.thread ?? null;
  const channel = thread?.channel ?? ctx.caller.channelId;
  const posted = await createChartPoster({ api: ctx.deps.api, logger: ctx.log }).postData({
    channel,
    ...(thread === null ? {} : { threadTs: thread.ts }),
    data: () => buildFleetChartData(run, states, usecases.now()),
    filename: `connect-roll-fleet-${run.fleet}-${run.id}.png`,
    what: "the fleet run",
  });
  const text =
    posted.kind === "posted"
      ? `📈 The timeline chart of fleet ${escapeMrkdwn(run.fleet)}'s run ${run.id} is posted ${thread === null ? "here" : "in its thread"} (<#${channel}>).`
      : `⚠️ The timeline chart of fleet ${escapeMrkdwn(run.fleet)}'s run could not be posted: ${escapeMrkdwn(posted.why)}.`;
  await ctx.respond(ephemeral(notice(text)));
}
