import type { AllMiddlewareArgs, RespondArguments, SlackCommandMiddlewareArgs } from "@slack/bolt";
import type { Logger } from "pino";
import type { Requester } from "../../../usecases/access.js";
import type { Notifier } from "../../notifier.js";
import type { SlackFleets } from "../../slack-fleets.js";
import type { SlackMessage, SlackWebApi } from "../../slack-web-api.js";
import type { ChatUseCaseDeps } from "../../use-case-deps.js";

export interface ConnectRollCommandDeps {
  readonly usecases: ChatUseCaseDeps;
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
  /** Fleets the bot runs (started here, taken over from a replica that died). */
  readonly fleets: SlackFleets;
}

export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** Who typed the command, and where. */
export type Caller = Extract<Requester, { kind: "slack" }>;

/** What one subcommand's listener gets: the app's deps, the caller, a logger for them, Slack's `respond`. */
export interface SubcommandContext {
  readonly deps: ConnectRollCommandDeps;
  readonly caller: Caller;
  readonly log: Logger;
  readonly respond: CommandArgs["respond"];
}

/** What a subcommand produces: the ephemeral answer, and optionally work to do once it is sent. */
export interface Answer {
  readonly reply: SlackMessage;
  readonly after?: () => Promise<void>;
}

export const ephemeral = (m: SlackMessage): RespondArguments => ({
  response_type: "ephemeral",
  text: m.text,
  ...(m.blocks === undefined ? {} : { blocks: [...m.blocks] }),
});
