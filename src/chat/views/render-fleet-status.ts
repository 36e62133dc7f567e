import type { FleetRunView } from "../../wording/fleet-status-text.js";
import { fleetStatusLines } from "../../wording/fleet-status-text.js";
import { message, section, type ViewMessage } from "./blocks.js";
import { escapeMrkdwn } from "./limits.js";

/** `/connect-roll fleet status <fleet>`: the fleet's latest run, a line per stage, as the terminal shows it. */
export function renderFleetStatus(
  fleet: string,
  run: (FleetRunView & { readonly thread?: unknown }) | null,
  live: boolean,
  commandName: string,
): ViewMessage {
  if (run === null) {
    const text = `Fleet ${escapeMrkdwn(fleet)} has no run on record. Start one with \`${commandName} fleet ${escapeMrkdwn(fleet)} VERSION\` (or from a terminal: \`connect-roll fleet run --config FILE ${escapeMrkdwn(fleet)} VERSION\`).`;
    return message(text, [section(text)]);
  }
  // A run started in Slack is taken over by a bot replica at its next sweep; a terminal's is resumed by rerunning it.
  const resume =
    run.thread === undefined || run.thread === null
      ? `connect-roll fleet run --config FILE ${run.fleet} ${run.target}`
      : null;
  const [headline = "", ...rest] = fleetStatusLines(run, live, resume);
  const body = `*${escapeMrkdwn(headline)}*\n${rest.map((l) => escapeMrkdwn(l.trim())).join("\n")}`;
  return message(headline, [section(body)]);
}
