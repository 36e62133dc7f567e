import { isWithinChangeWindow } from "../config/change-window.js";
import type { Config } from "../config/schema.js";
import { stepsDone } from "../core/rollout/summarize.js";
import { fleetLockName } from "../jobs/store/fleet-record.js";
import { rolloutStateOf } from "../jobs/store/rollout-record.js";
import type { StatusStore } from "../jobs/store/store-roles.js";
import { fleetStatusLines } from "../wording/fleet-status-text.js";
import type { ClusterOverview, FleetOverview } from "./views/render-overview.js";
import { statusStateOf } from "./views/render-status.js";

export interface ClusterOverviewDeps {
  readonly config: Config;
  readonly store: StatusStore;
  readonly now: number;
}

/** A link to a message that works in any client (Slack redirects it to the workspace). */
function permalinkOf(thread: { readonly channel: string; readonly ts: string }): string {
  return `https://slack.com/archives/${thread.channel}/p${thread.ts.replace(".", "")}`;
}

/**
 * Reads what the team's view shows for every configured cluster, in configuration order: the unfinished rollout (one
 * per cluster: the lock guarantees it), the lock holder, the newest history entry and the next change window.
 */
export async function readClusterOverviews(deps: ClusterOverviewDeps): Promise<ClusterOverview[]> {
  const { config, store, now } = deps;
  const unfinished = await store.listJobs({ unfinishedOnly: true });
  const out: ClusterOverview[] = [];
  for (const [name, cluster] of Object.entries(config.clusters)) {
    const job = unfinished.filter((j) => j.cluster === name).at(-1);
    const [lock, history] = await Promise.all([store.readLock(name), store.history(name, 1)]);
    const state = (() => {
      if (job === undefined) return null;
      try {
        return rolloutStateOf(job);
      } catch {
        return null;
      }
    })();
    const windows = cluster.access?.changeWindows ?? config.slack.changeWindows;
    const window = isWithinChangeWindow(windows, now);
    const last = history[0];
    out.push({
      cluster: name,
      active:
        job === undefined
          ? null
          : {
              jobId: job.id,
              target: state?.target.argument ?? null,
              state: state === null ? job.status : statusStateOf(state),
              paused: job.status === "paused",
              stepsDone: state === null ? 0 : stepsDone(state),
              stepsTotal: state?.steps.length ?? 0,
              requestedBy: job.requestedBy,
              since: job.createdAt,
              thread: job.thread,
              permalink: job.thread === null ? null : permalinkOf(job.thread),
            },
      lock: lock === null ? null : { jobId: lock.jobId, owner: lock.owner, since: lock.since },
      last:
        last === undefined
          ? null
          : {
              target: last.target,
              result: last.result,
              finishedAt: last.finishedAt,
              requestedBy: last.requestedBy,
              maxDataGapMs: last.maxDataGapMs,
              permalink: last.thread === null ? null : permalinkOf(last.thread),
            },
      window:
        windows.length === 0
          ? { kind: "always" }
          : window.kind === "open"
            ? { kind: "open" }
            : { kind: "closed", next: window.next },
    });
  }
  return out;
}

/** Every configured fleet's latest run, as `fleet status` words it (a run whose process is gone: stopped). */
export async function readFleetOverviews(deps: ClusterOverviewDeps): Promise<FleetOverview[]> {
  const out: FleetOverview[] = [];
  for (const name of Object.keys(deps.config.fleets)) {
    const run = await deps.store.loadFleetRun(name);
    if (run === null) {
      out.push({ fleet: name, lines: null });
      continue;
    }
    const live =
      run.status !== "running" || (await deps.store.readLock(fleetLockName(name)))?.jobId === run.id;
    out.push({ fleet: name, lines: fleetStatusLines(run, live, null) });
  }
  return out;
}
