import { abortFleet, checkFleetStart } from "../../../usecases/fleet-requests.js";
import { readFleetStatus } from "../../../usecases/read-status.js";
import { fleetAbortedText, fleetRefusalText } from "../../../wording/fleet-status-text.js";
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
  if (result.kind === "fleet")
    return { reply: renderFleetStatus(result.fleet, result.run, result.live, ctx.deps.commandName) };
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
