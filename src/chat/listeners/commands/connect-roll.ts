import type { AllMiddlewareArgs, RespondArguments, SlackCommandMiddlewareArgs } from "@slack/bolt";
import type { Logger } from "pino";
import { isAppError } from "../../../core/errors.js";
import type { BotService, Caller, PreparedRollout } from "../../bot-service.js";
import { notice } from "../../bot-service.js";
import { type Command, parseCommand } from "../../command-grammar.js";
import type { Notifier } from "../../notifier.js";
import { type SlackMessage, type SlackWebApi, slackFailureOf } from "../../slack-web-api.js";
import { notStartedParent, startingParent, threadKeys } from "../../thread-reporter.js";
import { escapeMrkdwn } from "../../views/limits.js";
import { renderHelp } from "../../views/render-help.js";

export interface ConnectRollCommandDeps {
  readonly bot: BotService;
  readonly notifier: Notifier;
  readonly api: SlackWebApi;
  readonly logger: Logger;
  readonly commandName: string;
  readonly newJobId: () => string;
  /** Answer in the ack body when the answer is ready within this; else ack "working…" and answer ephemerally. */
  readonly replyWithinMs: number;
  /**
   * A rollout starts only with its thread (the job records it from the start, so any replica that takes the job over
   * reports there): how long to wait for Slack to post the parent. When it has not by then, nothing is started.
   */
  readonly parentWaitMs: number;
  /** False once the app is shutting down: commands are refused (another replica takes them). */
  readonly accepting: () => boolean;
  /** Told which channel a job started from here reports to. */
  readonly onJobChannel: (jobId: string, channel: string) => void;
}

/** What a command produces: the ephemeral answer, and optionally work to do once it is sent. */
interface Answer {
  readonly reply: SlackMessage;
  readonly after?: () => Promise<void>;
}

type Args = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

const ephemeral = (m: SlackMessage): RespondArguments => ({
  response_type: "ephemeral",
  text: m.text,
  ...(m.blocks === undefined ? {} : { blocks: [...m.blocks] }),
});

/**
 * `/connect-roll …`: always acks within the deadline (with the answer, or "working on it" and the answer later as an
 * ephemeral message), never waits for a rollout. A rollout posts its thread parent, then starts in the background.
 */
export function createConnectRollCommand(deps: ConnectRollCommandDeps): (args: Args) => Promise<void> {
  const seen = new Map<string, number>();

  function firstDelivery(triggerId: string): boolean {
    const now = Date.now();
    for (const [id, at] of seen) if (now - at > 10 * 60_000) seen.delete(id);
    if (seen.has(triggerId)) return false;
    seen.set(triggerId, now);
    return true;
  }

  return async ({ command, ack, respond }) => {
    const caller: Caller = { userId: command.user_id, channelId: command.channel_id };
    const log = deps.logger.child({ component: "command", slackUserId: caller.userId });
    if (!deps.accepting()) {
      await ack(ephemeral(notice("connect-roll is restarting", ["Try again in a few seconds."])));
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
    const work = answer(command.text, caller, log, respond).catch((err: unknown): Answer => {
      log.error({ err }, "command failed");
      const why = isAppError(err) ? escapeMrkdwn(err.message) : "an internal error";
      return {
        reply: notice("Something went wrong", [
          `${why}. Nothing was started; try again, or check the bot's logs.`,
        ]),
      };
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

  async function runAfter(after: () => Promise<void>, log: Logger): Promise<void> {
    try {
      await after();
    } catch (err) {
      log.error({ err }, "background work of a command failed");
    }
  }

  async function answer(
    text: string,
    caller: Caller,
    log: Logger,
    respond: Args["respond"],
  ): Promise<Answer> {
    const parsed = parseCommand(text, { commandName: deps.commandName });
    if (parsed.kind === "error") {
      return {
        reply: notice(`That command did not parse: ${escapeMrkdwn(parsed.message)}`, [
          "Usage:",
          ...parsed.hint.split("\n").map((l) => `\`${escapeMrkdwn(l)}\``),
        ]),
      };
    }
    const c: Command = parsed.command;
    switch (c.kind) {
      case "help":
        return { reply: renderHelp(deps.commandName) };
      case "status":
        return { reply: await deps.bot.status(c.cluster, caller) };
      case "history":
        return { reply: await deps.bot.history(c.cluster, caller) };
      case "abort":
      case "pause":
      case "resume":
        return { reply: await deps.bot.control(c.kind, c.cluster, caller) };
      case "plan":
        return { reply: await deps.bot.plan(c.cluster, c.argument, caller) };
      case "rollout": {
        const prepared = await deps.bot.prepareRollout(c.cluster, c.argument, c.pace, caller);
        if (prepared.kind === "refused") return { reply: prepared.reply };
        const arg = c.argument.kind === "restart" ? "restart" : c.argument.version;
        return {
          reply: notice(`Starting the rollout of ${c.cluster} to ${escapeMrkdwn(arg)}…`, [
            "Progress will be in a thread in this channel.",
          ]),
          after: () => start(prepared.rollout, caller, log.child({ cluster: c.cluster }), respond),
        };
      }
    }
  }

  async function start(
    rollout: PreparedRollout,
    caller: Caller,
    log: Logger,
    respond: Args["respond"],
  ): Promise<void> {
    const jobId = deps.newJobId();
    const { channelId: channel } = caller;
    const parentKey = threadKeys.parent(jobId);
    const arg = rollout.target.argument;
    const handle = deps.notifier.post(channel, startingParent(rollout.cluster, arg, caller.userId), {
      key: parentKey,
    });
    const posted = await boundedTs(handle.ts, deps.parentWaitMs);
    const tell = async (m: SlackMessage) => {
      try {
        await respond(ephemeral(m));
      } catch {
        await deps.api
          .postEphemeral({ channel, user: caller.userId, ...m })
          .catch((err: unknown) => log.error({ err }, "could not tell the user"));
      }
    };
    if (posted.kind === "refused") {
      log.warn({ slackError: posted.error }, "thread parent refused; rollout not started");
      await tell(
        posted.error === "not_in_channel" || posted.error === "channel_not_found"
          ? notice("I am not in this channel", [
              `Invite me with \`/invite @connect-roll\`, then run the command again. Nothing was started.`,
            ])
          : notice("Slack refused the thread message", [
              `(${escapeMrkdwn(posted.error)}) Nothing was started.`,
            ]),
      );
      return;
    }
    if (posted.kind === "slow") {
      log.warn(
        { jobId, waitedMs: deps.parentWaitMs },
        "thread parent not posted in time; rollout not started",
      );
      // If Slack posts it after all, it must not look like a rollout that is starting.
      handle.ts.then(
        () =>
          deps.notifier.update(
            channel,
            parentKey,
            notStartedParent(rollout.cluster, arg, "Slack took too long to post this thread"),
          ),
        () => undefined,
      );
      await tell(
        notice("Slack is too slow right now", [
          `The rollout's thread was not posted within ${Math.round(deps.parentWaitMs / 1000)} s, and a rollout only starts with its thread. Nothing was started; try again in a few minutes.`,
        ]),
      );
      return;
    }
    deps.onJobChannel(jobId, channel);
    try {
      const started = await deps.bot.startRollout(rollout, jobId, { channel, ts: posted.ts });
      if (started.kind === "locked") {
        deps.notifier.update(
          channel,
          parentKey,
          notStartedParent(rollout.cluster, arg, "another rollout holds the lock"),
        );
        await tell(await deps.bot.lockedReply(rollout.cluster));
        return;
      }
      log.info({ jobId }, "rollout started");
    } catch (err) {
      log.error({ err, jobId }, "rollout could not start");
      deps.notifier.update(
        channel,
        parentKey,
        notStartedParent(rollout.cluster, arg, "the bot could not record the job"),
      );
      await tell(
        notice("The rollout could not start", [
          isAppError(err) ? escapeMrkdwn(err.message) : "internal error",
          "Try again in a minute.",
        ]),
      );
    }
  }
}

type Posted = { kind: "posted"; ts: string } | { kind: "refused"; error: string } | { kind: "slow" };

async function boundedTs(ts: Promise<string>, waitMs: number): Promise<Posted> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<Posted>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "slow" }), waitMs);
  });
  const outcome = ts.then(
    (value): Posted => ({ kind: "posted", ts: value }),
    (err: unknown): Posted => {
      const failure = slackFailureOf(isAppError(err) ? err.cause : err);
      return { kind: "refused", error: failure.kind === "permanent" ? failure.error : "closed" };
    },
  );
  try {
    return await Promise.race([outcome, slow]);
  } finally {
    clearTimeout(timer);
  }
}
