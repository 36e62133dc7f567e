import { setTimeout as sleep } from "node:timers/promises";
import { isWithinChangeWindow } from "../config/change-window.js";
import type { Config, FleetConfig } from "../config/schema.js";
import type { FleetProgress } from "../jobs/runner/fleet-progress.js";
import { accessOf } from "./access.js";
import { stageNeedsApproval } from "./fleet-stages.js";

/** What a fleet run tells as it goes (the terminal's lines and `--json` events, the Slack fleet thread's replies). */
export type FleetEvent =
  | { readonly event: "started"; readonly run: string; readonly target: string }
  | { readonly event: "resumed"; readonly from: string; readonly stage: number; readonly done: number }
  | { readonly event: "taken-over"; readonly run: string; readonly stage: number }
  | {
      readonly event: "stage-started";
      readonly stage: number;
      readonly label: string;
      readonly clusters: readonly string[];
    }
  | { readonly event: "cluster-waiting"; readonly cluster: string; readonly next: string }
  | { readonly event: "stage-succeeded"; readonly stage: number; readonly label: string }
  | {
      readonly event: "stage-soaking";
      readonly stage: number;
      readonly label: string;
      readonly soakMs: number;
    }
  | {
      readonly event: "summary";
      readonly result: "succeeded" | "failed" | "aborted";
      readonly reason: string;
      readonly run: string;
    };

/** How one cluster's rollout of the fleet ended; `detail` names it in the fleet's reason (`staging (exit 1)`). */
export type ClusterEnd =
  | { readonly kind: "succeeded" }
  | { readonly kind: "failed" | "aborted"; readonly detail: string }
  /** Its change windows never open again: not run. */
  | { readonly kind: "no-window" };

/** What runs a fleet's parts: the terminal (`connect-roll fleet run`) or the bot (a fleet started in Slack). */
export interface FleetPorts {
  readonly config: Config;
  readonly fleet: FleetConfig;
  readonly name: string;
  readonly target: string;
  readonly progress: FleetProgress;
  /** Every stage's approval given up front (`--yes`, `--approve=stage`). */
  readonly stagesApproved: boolean;
  say(event: FleetEvent): void;
  /** Said after "was not approved" when a stage is refused (how to give the approval). */
  readonly approvalHint?: string;
  /** Asks a person whether to start the stage (from 0); false when refused or nobody can answer. */
  askStage(stage: number, label: string): Promise<boolean>;
  /**
   * Rolls the cluster to the fleet's target and resolves when its rollout ended; `job` is the rollout this run (or the
   * run it took over) already started, to be waited for rather than started again.
   */
  rollCluster(stage: number, cluster: string, job: string | null): Promise<ClusterEnd>;
  /** The soak after a stage: what went wrong per cluster (empty: every task kept running and moving data). */
  soak(stage: readonly string[], signal: AbortSignal): Promise<string[]>;
  /** Waits for the cluster's change window (default: the config's windows, on the wall clock). */
  waitForWindow?(cluster: string, signal: AbortSignal): Promise<boolean>;
}

export type FleetResult = "succeeded" | "failed" | "aborted";

/**
 * Rolls the fleet's stages in order from the first not done, each recorded as it goes. A stage's clusters roll at
 * once, each as soon as its own change window opens; the next stage starts only when every cluster of this one
 * succeeded and kept its data flowing through the soak, and (per the fleet's approvals) a person said so.
 */
export async function driveFleet(p: FleetPorts): Promise<FleetResult> {
  const { fleet, target, progress } = p;
  const run = progress.record.id;
  const finish = (result: FleetResult, reason: string): FleetResult => {
    progress.finish(result, reason);
    p.say({ event: "summary", result, reason, run });
    return result;
  };
  const abortedReason = () => {
    const by = progress.abortedBy();
    return by === null ? "the fleet's lock was lost or the run was stopped" : `aborted by ${by.by}`;
  };
  const waitWindow = p.waitForWindow ?? ((c: string, s: AbortSignal) => waitForWindow(p, c, s));
  if (progress.takenOver) p.say({ event: "taken-over", run, stage: progress.firstStage + 1 });
  else p.say({ event: "started", run, target });
  if (progress.resumed !== null)
    p.say({
      event: "resumed",
      from: progress.resumed.id,
      stage: progress.firstStage + 1,
      done: progress.firstStage,
    });
  for (const [i, stage] of fleet.stages.entries()) {
    if (i < progress.firstStage) continue;
    const label = stageLabel(fleet, i);
    const recorded = progress.record.stages[i];
    if (progress.signal.aborted) return finish("aborted", `${abortedReason()} before ${label}`);
    const started =
      recorded !== undefined && recorded.status !== "pending" && recorded.status !== "awaiting-approval";
    if (!started && stageNeedsApproval(fleet, i) && !p.stagesApproved) {
      progress.stage(i, "awaiting-approval");
      if (!(await p.askStage(i, label))) {
        if (progress.signal.aborted) return finish("aborted", `${abortedReason()} before ${label}`);
        progress.stage(i, "failed");
        return finish(
          "failed",
          `${label} was not approved${p.approvalHint === undefined ? "" : ` (${p.approvalHint})`}; nothing of it ran`,
        );
      }
    }
    progress.stage(i, "running");
    p.say({ event: "stage-started", stage: i + 1, label, clusters: stage });
    // Each cluster waits for its own window and rolls as soon as it opens, not when the others' open.
    const ends = await Promise.all(
      stage.map(async (c): Promise<ClusterEnd> => {
        const entry = recorded?.clusters.find((e) => e.name === c);
        // Ended under an earlier owner of the run (taken over): as it ended, never rolled again.
        if (entry?.status === "succeeded") return { kind: "succeeded" };
        if (entry?.status === "failed" || entry?.status === "aborted")
          return { kind: entry.status, detail: `${c} (${entry.status})` };
        const job = entry?.job ?? null;
        if (job === null) {
          progress.cluster(i, c, "waiting-window");
          if (!(await waitWindow(c, progress.signal).catch(() => false))) return { kind: "no-window" };
          // Looked for now, not at the next poll: an abort recorded while the cluster waited must stop it here.
          if (progress.signal.aborted || (await progress.checkAbort()) !== null)
            return { kind: "aborted", detail: c };
        }
        progress.cluster(i, c, "running");
        // One cluster's error (a store that fails, a refused start) fails that cluster, not the others' waits.
        const end = await p.rollCluster(i, c, job).catch(
          (err: unknown): ClusterEnd => ({
            kind: "failed",
            detail: `${c} (${err instanceof Error ? err.message : String(err)})`,
          }),
        );
        const abortedNow = end.kind !== "succeeded" && (await progress.checkAbort()) !== null;
        progress.cluster(i, c, end.kind === "succeeded" ? "succeeded" : abortedNow ? "aborted" : "failed");
        return abortedNow && end.kind !== "no-window" ? { kind: "aborted", detail: c } : end;
      }),
    );
    if (progress.signal.aborted && ends.some((e) => e.kind !== "succeeded")) {
      progress.stage(i, "aborted");
      return finish("aborted", `${abortedReason()} during ${label}; later stages not started`);
    }
    const closed = stage.filter((_, j) => ends[j]?.kind === "no-window");
    if (closed.length > 0) {
      progress.stage(i, "failed");
      return finish("failed", `${closed.join(", ")}: no change window opens again`);
    }
    const failed = ends.flatMap((e) => (e.kind === "failed" || e.kind === "aborted" ? [e.detail] : []));
    if (failed.length > 0) {
      progress.stage(i, "failed");
      return finish(
        "failed",
        `${label}: ${failed.join(", ")} did not succeed; ${i + 1 < fleet.stages.length ? "later stages not started" : "no stage left"}`,
      );
    }
    p.say({ event: "stage-succeeded", stage: i + 1, label });
    if (i + 1 < fleet.stages.length && fleet.soakBetweenMs > 0) {
      progress.stage(i, "soaking");
      p.say({ event: "stage-soaking", stage: i + 1, label, soakMs: fleet.soakBetweenMs });
      const problems = await p.soak(stage, progress.signal);
      if (progress.signal.aborted) {
        progress.stage(i, "aborted");
        return finish("aborted", `${abortedReason()} during the soak of ${label}`);
      }
      if (problems.length > 0) {
        progress.stage(i, "failed");
        return finish("failed", `${label}: after the soak, ${problems.join("; ")}; later stages not started`);
      }
    }
    progress.stage(i, "succeeded");
  }
  return finish("succeeded", `${fleet.stages.length} stages, every cluster on ${target}`);
}

/** `stage 2/3 (prod-eu, prod-us)`. */
export function stageLabel(fleet: FleetConfig, stage: number): string {
  return `stage ${stage + 1}/${fleet.stages.length} (${(fleet.stages[stage] ?? []).join(", ")})`;
}

/** True once the cluster's change window is open (waiting for it, said once); false when none opens again. */
export async function waitForWindow(
  p: Pick<FleetPorts, "config" | "say">,
  cluster: string,
  signal: AbortSignal,
): Promise<boolean> {
  const windows = accessOf(p.config, p.config.clusters[cluster]).changeWindows;
  let told = false;
  for (;;) {
    const state = isWithinChangeWindow(windows, Date.now());
    if (state.kind === "open") return true;
    if (state.nextMs === null) return false;
    if (!told) p.say({ event: "cluster-waiting", cluster, next: state.next });
    told = true;
    await sleep(Math.min(60_000, Math.max(1_000, state.nextMs - Date.now())), undefined, { signal });
  }
}
