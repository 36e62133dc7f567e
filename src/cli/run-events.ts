import type { RolloutEvent } from "../core/rollout/rollout-io.js";
import type { RolloutSettings } from "../core/rollout/rollout-state.js";
import type { CliIo } from "./command.js";
import { planNotes } from "./plan-notes.js";
import { renderEventLine } from "./render-event-line.js";
import { eventJson } from "./run-json.js";

/**
 * What `run` prints of a rollout's events: a line per event that says something (the Slack thread, as text), or a
 * JSON object per event with --json; and, on stderr once the rollout is planned, what `plan` adds to the engine's
 * findings (why no window formed) and the plan's downgrade warning.
 */
export function printRunEvents(
  io: CliIo,
  json: boolean,
  settings: RolloutSettings,
): (event: RolloutEvent) => void {
  const lastGate = new Map<number, string>();
  return (event) => {
    if (event.kind === "rollout-planned")
      for (const note of [
        ...planNotes(event.plan, settings.planPolicy, settings.delayMs),
        ...event.plan.findings.filter((f) => f.code === "downgrade"),
      ])
        io.stderr.write(`connect-roll run: ${note.severity}: ${note.message}\n`);
    if (json) io.stdout.write(`${JSON.stringify(eventJson(event))}\n`);
    else {
      const line = renderEventLine(event, lastGate);
      if (line !== null) io.stdout.write(`${line}\n`);
    }
  };
}
