import { formatDuration } from "../core/format-duration.js";
import { plural } from "../core/plural.js";
import type { FleetEvent } from "../usecases/drive-fleet.js";
import type {
  FleetAbortAnswer,
  FleetControlRefusal,
  FleetNotRunning,
  FleetStartRefusal,
} from "../usecases/fleet-requests.js";
import { prepareRefusalText } from "./refusal-text.js";

type FleetAbortRequested = Extract<FleetAbortAnswer, { kind: "requested" }>;

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
    readonly clusters: readonly {
      readonly name: string;
      readonly status: string;
      readonly job?: string | null | undefined;
    }[];
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
      `  stage ${i + 1}/${run.stages.length} ${stage.status}: ${stage.clusters.map((c) => `${c.name} ${c.status}${c.job ? ` (job ${c.job})` : ""}`).join(", ")}`,
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

/** Why a fleet has nothing to abort or answer, one line; `control` is how an interrupted cluster rollout is aborted. */
export function fleetNotRunningText(r: FleetNotRunning, control: string): string {
  if (r.run === null) return `fleet ${r.fleet} has no run on record: nothing to abort`;
  if (r.stopped)
    return `fleet ${r.fleet}'s run ${r.run.id} is stopped (its process is gone): nothing runs to abort; abort an interrupted cluster rollout with ${control}`;
  return `fleet ${r.fleet}'s latest run (${r.run.id}) is ${r.run.status}, not running: nothing to abort`;
}

/** What an abort of a fleet did, one line. */
export function fleetAbortedText(a: FleetAbortRequested): string {
  const rolling = a.clusters.map((c) => `${c.cluster} (job ${c.jobId})`);
  return `abort requested for fleet ${a.fleet} (run ${a.runId}): no further stage will start${rolling.length > 0 ? `; aborting ${rolling.join(", ")} before their next restart` : ""}`;
}

/** Why a fleet request (start, abort, a stage's answer) did nothing, one line; `control` as for fleetNotRunningText. */
export function fleetRefusalText(
  r:
    | FleetStartRefusal
    | FleetControlRefusal
    | { readonly kind: "stage-not-waiting"; readonly status: string },
  control: string,
): string {
  switch (r.kind) {
    case "unknown-fleet":
      return `unknown fleet "${r.fleet}" (known: ${r.known.join(", ") || "none; fleets are set in the config"})`;
    case "fleet-cluster-refused":
      return `${r.cluster}: ${prepareRefusalText(r.refusal)}`;
    case "fleet-taking-over":
      return `fleet ${r.fleet}'s run ${r.runId} lost its bot replica and is being taken over by another (within a sweep); wait for it, or abort it`;
    case "fleet-busy":
      return `fleet ${r.fleet} is already running (run ${r.runId} by ${r.owner} since ${new Date(r.since).toISOString()})`;
    case "fleet-not-running":
      return fleetNotRunningText(r, control);
    case "stage-not-waiting":
      return `this prompt is not waiting for an answer any more (its stage or run is ${r.status}): nothing was changed`;
    default:
      return prepareRefusalText(r);
  }
}
