import { isAppError } from "../../../core/errors.js";
import { type PreparedRollout, prepareRollout, startRollout } from "../../../usecases/prepare-rollout.js";
import { boundedTs } from "../../bounded-ts.js";
import type { Command, RolloutArgument } from "../../command-grammar.js";
import type { SlackMessage } from "../../slack-web-api.js";
import { notStartedParent, startingParent, threadKeys } from "../../thread-reporter.js";
import { renderLocked } from "../../views/render-refusal-notices.js";
import { renderPrepareRefusal } from "../../views/render-rollout-refusal.js";
import {
  renderCouldNotStart,
  renderParentRefused,
  renderParentTooSlow,
  renderStarting,
} from "../../views/render-rollout-start.js";
import { type Answer, ephemeral, type SubcommandContext } from "./subcommand.js";

export const argumentText = (a: RolloutArgument): string => (a.kind === "restart" ? "restart" : a.version);

/**
 * `/connect-roll <cluster> <version|restart> [--pace …]`: every check first (the answer is a refusal or "starting…");
 * once the answer is sent, the thread's parent is posted and only then the rollout starts, in the background.
 */
export async function rolloutSubcommand(
  command: Extract<Command, { kind: "rollout" }>,
  ctx: SubcommandContext,
): Promise<Answer> {
  const { deps, caller } = ctx;
  const argument = argumentText(command.argument);
  const prepared = await prepareRollout(deps.usecases, {
    cluster: command.cluster,
    argument,
    ...(command.pace === undefined ? {} : { pace: command.pace }),
    ...(command.since === undefined ? {} : { since: command.since }),
    requester: caller,
  });
  if (prepared.kind === "refused") return { reply: renderPrepareRefusal(prepared.reason, deps.commandName) };
  return {
    reply: renderStarting(command.cluster, argument),
    after: () =>
      startPrepared(prepared.rollout, { ...ctx, log: ctx.log.child({ cluster: command.cluster }) }),
  };
}

/**
 * Posts the thread's parent, then starts the prepared rollout under a new job id; a parent Slack refuses or posts
 * too late, or a lock taken meanwhile, leaves nothing started and tells the user why.
 */
export async function startPrepared(rollout: PreparedRollout, ctx: SubcommandContext): Promise<void> {
  const { deps, caller, log } = ctx;
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
      await ctx.respond(ephemeral(m));
    } catch {
      await deps.api
        .postEphemeral({ channel, user: caller.userId, ...m })
        .catch((err: unknown) => log.error({ err }, "could not tell the user"));
    }
  };
  if (posted.kind === "refused") {
    log.warn({ slackError: posted.error }, "thread parent refused; rollout not started");
    await tell(renderParentRefused(posted.error));
    return;
  }
  if (posted.kind === "slow") {
    log.warn({ jobId, waitedMs: deps.parentWaitMs }, "thread parent not posted in time; rollout not started");
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
    await tell(renderParentTooSlow(deps.parentWaitMs));
    return;
  }
  deps.onJobChannel(jobId, channel);
  try {
    const started = await startRollout(deps.usecases, rollout, { jobId, thread: { channel, ts: posted.ts } });
    if (started.kind === "refused") {
      deps.notifier.update(
        channel,
        parentKey,
        notStartedParent(rollout.cluster, arg, "another rollout holds the lock"),
      );
      await tell(renderLocked(started.reason, deps.commandName));
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
    await tell(renderCouldNotStart(isAppError(err) ? err.message : null));
  }
}
