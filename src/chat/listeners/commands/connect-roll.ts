import type { Logger } from "pino";
import { isAppError } from "../../../core/errors.js";
import { parseCommand } from "../../command-grammar.js";
import type { SlackMessage } from "../../slack-web-api.js";
import { notice } from "../../views/notice.js";
import {
  renderCommandFailed,
  renderNotParsed,
  renderRestarting,
} from "../../views/render-command-notices.js";
import { controlSubcommand } from "./control.js";
import { fleetAbortSubcommand, fleetStartSubcommand, fleetStatusSubcommand } from "./fleet.js";
import { helpSubcommand } from "./help.js";
import { historySubcommand } from "./history.js";
import { planSubcommand } from "./plan.js";
import { rollbackSubcommand } from "./rollback.js";
import { rolloutSubcommand } from "./rollout.js";
import { statusSubcommand } from "./status.js";
import {
  type Answer,
  type Caller,
  type CommandArgs,
  type ConnectRollCommandDeps,
  ephemeral,
  type SubcommandContext,
} from "./subcommand.js";

export type { ConnectRollCommandDeps } from "./subcommand.js";

/**
 * `/connect-roll …`: always acks within the deadline (with the answer, or "working on it" and the answer later as an
 * ephemeral message), never waits for a rollout. Parses the text and hands it to its subcommand's listener (one file
 * each in this folder).
 */
export function createConnectRollCommand(deps: ConnectRollCommandDeps): (args: CommandArgs) => Promise<void> {
  const seen = new Map<string, number>();

  function firstDelivery(triggerId: string): boolean {
    const now = Date.now();
    for (const [id, at] of seen) if (now - at > 10 * 60_000) seen.delete(id);
    if (seen.has(triggerId)) return false;
    seen.set(triggerId, now);
    return true;
  }

  return async ({ command, ack, respond }) => {
    const caller: Caller = { kind: "slack", userId: command.user_id, channelId: command.channel_id };
    const log = deps.logger.child({ component: "command", slackUserId: caller.userId });
    if (!deps.accepting()) {
      await ack(ephemeral(renderRestarting()));
      return;
    }
    if (command.trigger_id !== undefined && !firstDelivery(command.trigger_id)) {
      await ack();
      return;
    }
    const sendLater = async (message: SlackMessage) => {
      try {
        await deps.api.postEphemeral({ channel: caller.channelId, user: caller.userId, ...message });
      } catch (err) {
        log.warn({ err }, "ephemeral answer failed, trying response_url");
        await respond(ephemeral(message)).catch((e: unknown) => log.error({ err: e }, "answer lost"));
      }
    };
    const work = answer(command.text, { deps, caller, log, respond }).catch((err: unknown): Answer => {
      log.error({ err }, "command failed");
      return { reply: renderCommandFailed(isAppError(err) ? err.message : null) };
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), deps.replyWithinMs);
    });
    const quick = await Promise.race([work, late]);
    clearTimeout(timer);
    if (quick !== null) {
      await ack(ephemeral(quick.reply));
      if (quick.after) void runAfter(quick.after, log);
      return;
    }
    await ack(ephemeral(notice("Working on it…")));
    void work.then(async (slow) => {
      await sendLater(slow.reply);
      if (slow.after) await runAfter(slow.after, log);
    });
  };
}

async function runAfter(after: () => Promise<void>, log: Logger): Promise<void> {
  try {
    await after();
  } catch (err) {
    log.error({ err }, "background work of a command failed");
  }
}

async function answer(text: string, ctx: SubcommandContext): Promise<Answer> {
  const parsed = parseCommand(text, { commandName: ctx.deps.commandName });
  if (parsed.kind === "error") return { reply: renderNotParsed(parsed.message, parsed.hint) };
  const c = parsed.command;
  switch (c.kind) {
    case "help":
      return helpSubcommand(ctx);
    case "status":
      return statusSubcommand(c, ctx);
    case "history":
      return historySubcommand(c, ctx);
    case "abort":
    case "pause":
    case "resume":
      return controlSubcommand(c, ctx);
    case "plan":
      return planSubcommand(c, ctx);
    case "rollout":
      return rolloutSubcommand(c, ctx);
    case "rollback":
      return rollbackSubcommand(c, ctx);
    case "fleet-status":
      return fleetStatusSubcommand(c, ctx);
    case "fleet-start":
      return fleetStartSubcommand(c, ctx);
    case "fleet-abort":
      return fleetAbortSubcommand(c, ctx);
  }
}
