import { context, message, section, type ViewMessage } from "./blocks.js";
import { escapeMrkdwn } from "./limits.js";

const COMMANDS: readonly (readonly [string, string])[] = [
  [
    "<cluster> <version|restart> [--pace safe|window|rotate]",
    "roll every worker to a version (e.g. `v3.7`), or restart them all",
  ],
  [
    "plan <cluster> <version|restart>",
    "dry run: order, leader, protocol per step, eager windows, predicted disruption",
  ],
  [
    "status [cluster]",
    "every cluster (rollout, lock, last result, next window) or one cluster's rollout and lock",
  ],
  ["status <cluster> --chart", "also post the running rollout's timeline chart in its thread"],
  ["abort <cluster>", "stop the rollout before the next restart"],
  ["pause <cluster>", "pause before the next restart"],
  ["resume <cluster>", "resume a paused rollout"],
  ["history <cluster>", "the last rollouts of a cluster"],
  [
    "rollback <cluster>",
    "return every worker the last upgrade moved to the version it left, newest first, through the same gate",
  ],
  [
    "fleet <fleet> <version|restart>",
    "roll a fleet's clusters stage by stage (a soak and, where configured, an approval between stages)",
  ],
  ["fleet status <fleet> [--chart]", "a fleet's latest run, each stage and cluster (and its timeline chart)"],
  ["fleet abort <fleet>", "start no further stage; its clusters rolling now stop before their next restart"],
  ["help", "this message"],
];

/** The command grammar, for an ephemeral reply. */
export function renderHelp(commandName = "/connect-roll"): ViewMessage {
  const name = escapeMrkdwn(commandName);
  const lines = COMMANDS.map(([usage, what]) => `\`${name} ${escapeMrkdwn(usage)}\` · ${what}`);
  return message(`${name}: roll Kafka Connect workers one at a time. ${name} help for the commands.`, [
    section(
      `*${name}* rolls a Kafka Connect cluster one worker at a time, followers first and the leader last.`,
    ),
    section(lines.join("\n")),
    context("Progress, approvals and the final report go to a thread in this channel."),
  ]);
}
