import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Config, FleetConfig } from "../config/schema.js";
import { ErrorCode, isAppError } from "../core/errors.js";
import { type FleetProgress, newFleetRunId, openFleetProgress } from "../jobs/runner/fleet-progress.js";
import type { RolloutService } from "../jobs/runner/rollout-service.js";
import { type FleetRunRecord, fleetLockName } from "../jobs/store/fleet-record.js";
import { isFinished } from "../jobs/store/job-record.js";
import type { JobStore } from "../jobs/store/job-store.js";
import { type ClusterEnd, driveFleet } from "../usecases/drive-fleet.js";
import { checkRolloutRequest, type PreparePolicy } from "../usecases/prepare-rollout.js";
import { prepareRefusalText } from "../wording/refusal-text.js";
import { boundedTs } from "./bounded-ts.js";
import type { Notifier } from "./notifier.js";
import type { SlackMessage } from "./slack-web-api.js";
import { notStartedParent, startingParent, threadKeys } from "./thread-reporter.js";
import {
  renderClusterStarted,
  renderFleetEvent,
  renderFleetParent,
  renderStageAnswered,
  renderStagePrompt,
} from "./views/render-fleet.js";

/** What the bot's fleet runs need of the store: the fleet's record and lock, its answers, its clusters' jobs. */
export type SlackFleetStore = Pick<
  JobStore,
  | "acquireLock"
  | "renewLock"
  | "releaseLock"
  | "readLock"
  | "saveFleetRun"
  | "loadFleetRun"
  | "fleetAbortRequest"
  | "fleetStageDecision"
  | "loadJob"
  | "requestControl"
>;

export interface SlackFleetsOptions {
  readonly config: Config;
  readonly store: SlackFleetStore;
  readonly service: RolloutService;
  readonly notifier: Notifier;
  readonly logger: Logger;
  /** This replica's id: the fleet lock's holder. */
  readonly owner: string;
  readonly lockTtlMs: number;
  readonly settingsFor: PreparePolicy["settingsFor"];
  /** The soak after a stage (composition/fleet-soak.ts). */
  readonly soak: (fleet: FleetConfig, stage: readonly string[], signal: AbortSignal) => Promise<string[]>;
  readonly newJobId: () => string;
  /** How long a cluster's rollout waits for its thread's parent before it is not started. */
  readonly parentWaitMs: number;
  /** How often a cluster's job and a stage's answer are read; default 1000. */
  readonly pollMs?: number;
  /** Told whenever a fleet run changes (the Home tab). */
  readonly onChange?: () => void;
}

export interface FleetStartRequest {
  readonly name: string;
  readonly fleet: FleetConfig;
  readonly target: string;
  /** The Slack user who asked. */
  readonly requestedBy: string;
  readonly channel: string;
}

export type FleetStarted =
  | { readonly kind: "started"; readonly runId: string }
  | { readonly kind: "not-started"; readonly why: string };

/** Fleets run by the bot: started from Slack, reported in a thread, taken over by another replica when one dies. */
export interface SlackFleets {
  /** Posts the fleet's parent message, takes the fleet's lock and runs it in the background. */
  start(request: FleetStartRequest): Promise<FleetStarted>;
  /** Takes over every fleet started in Slack whose run is unfinished and whose lock is free; their run ids. */
  sweep(): Promise<string[]>;
  /** Fleet runs going on in this replica. */
  running(): readonly string[];
  /** Stops every run here without finishing it (another replica takes it over) and waits for them. */
  close(): Promise<void>;
}

/** Why a cluster was not started by a replica that cannot keep the fleet's record (stopping, lock lost, store down). */
const LEFT_TO_ANOTHER =
  "not started: the fleet's record could not be kept here; another replica takes the fleet over";

export const fleetParentKey = (runId: string): string => `${runId}:fleet:parent`;

/** The run was started with the stages the config has now (same clusters, same order). */
function sameStages(run: FleetRunRecord, fleet: FleetConfig): boolean {
  return (
    run.stages.length === fleet.stages.length &&
    run.stages.every((s, i) => s.clusters.map((c) => c.name).join(",") === (fleet.stages[i] ?? []).join(","))
  );
}

export function createSlackFleets(o: SlackFleetsOptions): SlackFleets {
  const log = o.logger.child({ component: "slack-fleets" });
  const pollMs = o.pollMs ?? 1_000;
  const shutdown = new AbortController();
  const runs = new Map<string, Promise<void>>();
  let replies = 0;

  /** Runs the fleet to its end in this replica, the progress opened (fresh or taken over). */
  async function drive(progress: FleetProgress, fleet: FleetConfig, thread: { channel: string; ts: string }) {
    const run = progress.record;
    const { channel, ts } = thread;
    const reply = (message: SlackMessage, key?: string) => {
      replies += 1;
      o.notifier.post(channel, message, {
        key: key ?? `${run.id}:fleet:${o.owner}:${replies}`,
        threadTs: ts,
      });
    };
    const quiet = () => shutdown.signal.aborted || progress.lockLost();
    // At once, before the driver reacts to the stop: a replica shutting down records no end for the run.
    const abandon = () => progress.abandon();
    if (shutdown.signal.aborted) abandon();
    shutdown.signal.addEventListener("abort", abandon, { once: true });
    try {
      await driveFleet({
        config: o.config,
        fleet,
        name: run.fleet,
        target: run.target,
        progress,
        stagesApproved: false,
        say: (event) => {
          // A replica that stops or lost the fleet tells nothing: the run goes on elsewhere.
          if (!quiet()) reply(renderFleetEvent(event));
        },
        askStage: (stage, label) => askStage(progress, stage, label, channel, reply),
        rollCluster: (stage, cluster, job) => rollCluster(progress, stage, cluster, job, channel, reply),
        soak: (stage, signal) => o.soak(fleet, stage, signal),
      });
    } finally {
      shutdown.signal.removeEventListener("abort", abandon);
      await progress.close();
      o.onChange?.();
    }
  }

  async function askStage(
    progress: FleetProgress,
    stage: number,
    label: string,
    channel: string,
    reply: (m: SlackMessage, key?: string) => void,
  ): Promise<boolean> {
    const run = progress.record;
    const key = `${run.id}:fleet:stage:${stage}:${o.owner}`;
    reply(renderStagePrompt(run.fleet, run.id, stage, label, run.target), key);
    while (!progress.signal.aborted) {
      const answer = await o.store.fleetStageDecision(run.fleet, run.id, stage).catch(() => null);
      if (answer !== null) {
        o.notifier.update(channel, key, renderStageAnswered(label, answer.decision, answer.by));
        if (answer.decision === "abort") await progress.checkAbort();
        return answer.decision === "approve";
      }
      await sleep(pollMs, undefined, { signal: progress.signal }).catch(() => undefined);
    }
    return false;
  }

  async function rollCluster(
    progress: FleetProgress,
    stage: number,
    cluster: string,
    job: string | null,
    channel: string,
    reply: (m: SlackMessage) => void,
  ): Promise<ClusterEnd> {
    let jobId = job;
    if (jobId === null || (await jobGone(jobId))) {
      const started = await startCluster(progress, stage, cluster, jobId ?? o.newJobId(), channel, reply);
      if (started.kind !== "started") return started.end;
      jobId = started.jobId;
    }
    return waitForJob(progress, cluster, jobId);
  }

  /** True when the job was recorded in the fleet but never created (its replica died between the two). */
  async function jobGone(jobId: string): Promise<boolean> {
    try {
      await o.store.loadJob(jobId);
      return false;
    } catch (err) {
      if (isAppError(err) && err.code === ErrorCode.JobNotFound) return true;
      throw err;
    }
  }

  async function startCluster(
    progress: FleetProgress,
    stage: number,
    cluster: string,
    jobId: string,
    channel: string,
    reply: (m: SlackMessage) => void,
  ): Promise<{ kind: "started"; jobId: string } | { kind: "not-started"; end: ClusterEnd }> {
    const run = progress.record;
    const failed = (why: string) => ({
      kind: "not-started" as const,
      end: { kind: "failed" as const, detail: `${cluster} (${why})` },
    });
    // Checked at the fleet's start for the requester; again here for what may have changed since (the window).
    const checked = await checkRolloutRequest(
      { config: o.config, now: Date.now, authorizer: null, settingsFor: o.settingsFor },
      { cluster, argument: run.target, requester: { kind: "terminal", user: run.requestedBy } },
    );
    if (checked.kind === "refused") return failed(prepareRefusalText(checked.reason));
    // Recorded before the job exists: a replica taking the fleet over looks for this job, or starts it. Not started
    // unless that landed and this replica still owns the run (no shutdown, lock not lost).
    progress.cluster(stage, cluster, "running", jobId);
    if (!(await progress.flush()) || stopping(progress)) return failed(LEFT_TO_ANOTHER);
    const parentKey = threadKeys.parent(jobId);
    const handle = o.notifier.post(channel, startingParent(cluster, run.target, run.requestedBy), {
      key: parentKey,
    });
    const posted = await boundedTs(handle.ts, o.parentWaitMs);
    if (posted.kind !== "posted") return failed("Slack did not post its thread");
    const thread = { channel, ts: posted.ts };
    // An abort of the fleet recorded while the thread was posted: this cluster must not start.
    if ((await progress.checkAbort()) !== null) {
      o.notifier.update(channel, parentKey, notStartedParent(cluster, run.target, "the fleet was aborted"));
      return { kind: "not-started", end: { kind: "aborted", detail: cluster } };
    }
    if (stopping(progress)) {
      o.notifier.update(channel, parentKey, notStartedParent(cluster, run.target, LEFT_TO_ANOTHER));
      return failed(LEFT_TO_ANOTHER);
    }
    const started = await o.service.start({ ...checked.rollout, jobId, thread });
    // Held by this very job: the replica that took the fleet over started it a moment ago. It runs: wait for it.
    if (started.kind === "locked" && started.holder.jobId === jobId) return { kind: "started", jobId };
    if (started.kind === "locked") {
      o.notifier.update(
        channel,
        parentKey,
        notStartedParent(cluster, run.target, "another rollout holds the lock"),
      );
      return failed(`another rollout holds its lock: job ${started.holder.jobId}`);
    }
    reply(renderClusterStarted(cluster, jobId, thread));
    // An abort of the fleet recorded while this cluster started found no job of it to abort: abort it now.
    const abort = await progress.checkAbort();
    if (abort !== null)
      await o.store
        .requestControl(jobId, { action: "abort", by: abort.by, at: abort.at })
        .catch((err: unknown) => log.warn({ err, jobId }, "could not abort a cluster of an aborted fleet"));
    return { kind: "started", jobId };
  }

  /** This replica must not start anything more for the run: it is shutting down, or the fleet's lock is lost. */
  function stopping(progress: FleetProgress): boolean {
    return shutdown.signal.aborted || progress.lockLost();
  }

  /** Waits for the cluster's rollout to end, whichever replica runs it (it may be taken over on the way). */
  async function waitForJob(progress: FleetProgress, cluster: string, jobId: string): Promise<ClusterEnd> {
    for (;;) {
      const job = await o.store.loadJob(jobId).catch(() => null);
      if (job !== null && isFinished(job.status))
        return job.status === "succeeded"
          ? { kind: "succeeded" }
          : { kind: job.status === "aborted" ? "aborted" : "failed", detail: `${cluster} (${job.status})` };
      // A fleet that stops here (shutdown, lock lost) leaves the cluster's rollout to run: its job is on record. An
      // aborted fleet waits on: its running clusters were aborted too, and stop at their next safe point.
      if (shutdown.signal.aborted || progress.lockLost())
        return { kind: "failed", detail: `${cluster} (left running: the fleet moved to another replica)` };
      await sleep(pollMs, undefined, { signal: shutdown.signal }).catch(() => undefined);
    }
  }

  function launch(progress: FleetProgress, fleet: FleetConfig, thread: { channel: string; ts: string }) {
    const id = progress.record.id;
    const done = drive(progress, fleet, thread)
      .catch((err: unknown) => log.error({ err, runId: id }, "fleet run crashed"))
      .finally(() => runs.delete(id));
    runs.set(id, done);
  }

  return {
    async start(request) {
      const runId = newFleetRunId();
      const text = `connect-roll · fleet ${request.name} → ${request.target}: starting (requested by <@${request.requestedBy}>)`;
      const parent = o.notifier.post(
        request.channel,
        { text, blocks: [{ type: "section", text: { type: "mrkdwn", text: `⏳ ${text}` } }] },
        { key: fleetParentKey(runId) },
      );
      const notStarted = (why: string): FleetStarted => {
        o.notifier.update(request.channel, fleetParentKey(runId), {
          text: `connect-roll · fleet ${request.name} → ${request.target}: not started: ${why}`,
        });
        return { kind: "not-started", why };
      };
      const posted = await boundedTs(parent.ts, o.parentWaitMs);
      if (posted.kind === "slow") {
        // If Slack posts it after all, it must not look like a fleet that is starting.
        parent.ts.then(
          () => notStarted("Slack took too long to post this thread"),
          () => undefined,
        );
        return { kind: "not-started", why: "Slack took too long to post its thread" };
      }
      if (posted.kind === "refused")
        return { kind: "not-started", why: `Slack refused its thread (${posted.error})` };
      const thread = { channel: request.channel, ts: posted.ts };
      const opening = openFleetProgress({
        store: o.store,
        fleet: request.name,
        stages: request.fleet.stages,
        target: request.target,
        requestedBy: request.requestedBy,
        owner: o.owner,
        lockTtlMs: o.lockTtlMs,
        logger: o.logger,
        signal: shutdown.signal,
        id: runId,
        thread,
        onChange: (record) => {
          o.notifier.update(request.channel, fleetParentKey(runId), renderFleetParent(record));
          o.onChange?.();
        },
        warn: (line) => log.warn({ runId }, line),
      });
      const opened = await opening.catch((err: unknown) => {
        log.error({ err, runId }, "fleet run could not be recorded");
        return null;
      });
      if (opened === null) return notStarted("the bot could not record the fleet run (the store failed)");
      if (opened.kind !== "ok")
        return notStarted(
          opened.kind === "busy"
            ? `run ${opened.holder.jobId} of fleet ${request.name} is running`
            : "another run of the fleet started meanwhile",
        );
      launch(opened.progress, request.fleet, thread);
      return { kind: "started", runId };
    },

    async sweep() {
      if (shutdown.signal.aborted) return [];
      const taken: string[] = [];
      for (const [name, fleet] of Object.entries(o.config.fleets)) {
        try {
          const run = await o.store.loadFleetRun(name);
          const thread = run?.thread ?? null;
          if (run === null || run.status !== "running" || thread === null || runs.has(run.id)) continue;
          if ((await o.store.readLock(fleetLockName(name))) !== null) continue;
          o.notifier.adopt(thread.channel, fleetParentKey(run.id), thread.ts);
          const opened = await openFleetProgress({
            store: o.store,
            fleet: name,
            stages: fleet.stages,
            target: run.target,
            requestedBy: run.requestedBy,
            owner: o.owner,
            lockTtlMs: o.lockTtlMs,
            logger: o.logger,
            signal: shutdown.signal,
            takeOver: run,
            onChange: (record) => {
              o.notifier.update(thread.channel, fleetParentKey(run.id), renderFleetParent(record));
              o.onChange?.();
            },
            warn: (line) => log.warn({ runId: run.id }, line),
          });
          if (opened.kind !== "ok") continue;
          if (!sameStages(run, fleet)) {
            // This replica's config has other stages: going on would roll them out of order, or skip approvals.
            opened.progress.finish(
              "failed",
              "the fleet's stages changed in the config since this run started; start it again with the new stages",
            );
            o.notifier.post(
              thread.channel,
              renderFleetEvent({
                event: "summary",
                result: "failed",
                reason: `the fleet's stages changed in the config since run ${run.id} started; start it again with the new stages`,
                run: run.id,
              }),
              { key: `${run.id}:fleet:${o.owner}:stages-changed`, threadTs: thread.ts },
            );
            await opened.progress.close();
            continue;
          }
          log.warn({ runId: run.id, fleet: name, previousOwner: run.owner }, "fleet run taken over");
          launch(opened.progress, fleet, thread);
          taken.push(run.id);
        } catch (err) {
          log.error({ err, fleet: name }, "fleet could not be looked at for a takeover");
        }
      }
      return taken;
    },

    running: () => [...runs.keys()],

    async close() {
      shutdown.abort(new Error("shutting down"));
      await Promise.allSettled([...runs.values()]);
    },
  };
}
