import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type { FleetEvent } from "../usecases/drive-fleet.js";

/** What a fleet status shows of a fleet run (the stored record's fields, jobs/store/fleet-record.ts). */
export interface FleetRunView {
  readonly id: string;
  readonly fleet: string;
  readonly target: string;
  readonly requestedBy: string;
  readonly startedAt: number;
  readonly updatedAt: number;
  readonly resumedFrom: string | null;
  readonly status: string;
  readonly reason: string | null;
  readonly stages: readonly {
    readonly status: string;
    readonly clusters: readonly { readonly name: string; readonly status: string }[];
  }[];
}

/**
 * A fleet run as lines, for `connect-roll fleet status` and `/connect-roll fleet status`: a headline (a run still
 * marked running whose process is gone, `live` false, is "stopped"), a line per stage with its clusters, and for a
 * stopped run the command that resumes it (`resume`, or null when none can be said).
 */
export function fleetStatusLines(run: FleetRunView, live: boolean, resume: string | null): string[] {
  const age = formatDuration(Math.max(0, run.updatedAt - run.startedAt));
  const state =
    run.status === "running"
      ? live
        ? "running"
        : "stopped (its process is gone)"
      : `${run.status}${run.reason === null ? "" : `: ${run.reason}`}`;
  const lines = [
    `fleet ${run.fleet} run ${run.id} to ${run.target}, by ${run.requestedBy}, started ${new Date(run.startedAt).toISOString()} (last change ${age} later): ${state}`,
  ];
  if (run.resumedFrom !== null) lines.push(`  resumes run ${run.resumedFrom}`);
  for (const [i, stage] of run.stages.entries())
    lines.push(
      `  stage ${i + 1}/${run.stages.length} ${stage.status}: ${stage.clusters.map((c) => `${c.name} ${c.status}`).join(", ")}`,
    );
  if (run.status === "running" && !live && resume !== null) lines.push(`  resume: ${resume}`);
  return lines;
}

/** A fleet run's event as one plain line (the terminal's `fleet NAME: …` lines; the Slack fleet thread's replies). */
export function fleetEventLine(e: FleetEvent): string {
  switch (e.event) {
    case "started":
      return `run ${e.run} to ${e.target}`;
    case "taken-over":
      return `run ${e.run} taken over (its process is gone): going on from stage ${e.stage}`;
    case "resumed":
      return `resuming run ${e.from}: ${plural(e.done, "stage")} already done (rolled and soaked), starting at stage ${e.stage}`;
    case "stage-started":
      return `${e.label} started`;
    case "cluster-waiting":
      return `${e.cluster}: outside its change window; waiting until ${e.next}`;
    case "stage-succeeded":
      return `${e.label} succeeded`;
    case "stage-soaking":
      return `${e.label}: soaking ${formatDuration(e.soakMs)} before the next stage`;
    case "summary":
      return `${e.result}: ${e.reason}`;
  }
}
