import { readFleetStatus } from "../../../usecases/read-status.js";
import type { Command } from "../../command-grammar.js";
import { renderFleetStatus } from "../../views/render-fleet-status.js";
import { renderReadRefusal, renderUnknownFleet } from "../../views/render-refusal-notices.js";
import type { Answer, SubcommandContext } from "./subcommand.js";

/** `/connect-roll fleet status <fleet>`: the fleet's latest run, recorded by `connect-roll fleet run`. */
export async function fleetStatusSubcommand(
  command: Extract<Command, { kind: "fleet-status" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const result = await readFleetStatus(ctx.deps.usecases, { fleet: command.fleet, requester: ctx.caller });
  if (result.kind === "fleet") return { reply: renderFleetStatus(result.fleet, result.run, result.live) };
  return {
    reply:
      result.reason.kind === "unknown-fleet"
        ? renderUnknownFleet(result.reason)
        : renderReadRefusal(result.reason, ctx.deps.commandName),
  };
}
