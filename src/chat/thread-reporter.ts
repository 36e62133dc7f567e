import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { PendingApproval } from "../core/rollout/approval-types.js";
import type { RolloutEvent } from "../core/rollout/rollout-io.js";
import type { RolloutState } from "../core/rollout/rollout-state.js";
import { canaryPassedText, canarySoakingText } from "../wording/canary-text.js";
import { dataFlowUnseenText } from "../wording/data-flow-text.js";
import { restartLearnedText } from "../wording/restart-learned-text.js";
import type { ChartPoster } from "./chart-poster.js";
import type { Notifier, PostHandle } from "./notifier.js";
import type { SlackMessage } from "./slack-web-api.js";
import { escapeMrkdwn, MAX_BLOCKS } from "./views/limits.js";
import { renderApprovalDecided, renderApprovalPrompt } from "./views/render-approval.js";
import { renderFinalReport } from "./views/render-final-report.js";
import { renderParent } from "./views/render-parent.js";
import { renderStepReply } from "./views/render-step-reply.js";

/** Notifier keys of a job's thread messages (one place, so the command handler and the reporter agree). */
export const threadKeys = {
  parent: (jobId: string) => `${jobId}:parent`,
  step: (jobId: string, step: number) => `${jobId}:step:${step}`,
  approval: (jobId: string, approvalId: string) => `${jobId}:approval:${approvalId}`,
  /** Notes are numbered per reporter (`run`): a replica that runs the same job again never reuses a note's key. */
  note: (jobId: string, run: string, n: number) => `${jobId}:note:${run}:${n}`,
  /** The final report posted in the channel when its thread could not take it. */
  reportInChannel: (jobId: string) => `${jobId}:report:channel`,
  report: (jobId: string) => `${jobId}:report`,
} as const;

export interface ThreadReporterOptions {
  readonly notifier: Notifier;
  readonly jobId: string;
  readonly channel: string;
  /**
   * The parent's ts when known from the job record (a replica that takes the job over adopts it). Replies go to the
   * thread by this ts, so they reach it whatever the notifier still remembers of the parent.
   */
  readonly parentTs: string | null;
  /** Clock of the runner (views show durations in its time). */
  readonly now: () => number;
  /** This replica's id, shown when it takes a job over. */
  readonly replicaId: string;
  readonly logger: Logger;
  /**
   * Step replies and prompts already posted for this job (notifier key → ts, from the job record): a replica that
   * takes the job over edits these messages instead of posting new ones.
   */
  readonly messages?: Readonly<Record<string, string>>;
  /** Records the ts of a step reply, prompt or the final report once posted (the job record's `messages`); must not throw. */
  readonly remember?: (key: string, ts: string) => void;
  /** Shares the timeline chart in the thread after the final report; without it, no chart. */
  readonly chart?: ChartPoster;
}

/**
 * The messages a reporter records and adopts (notes are numbered per run, so they are never adopted). The final
 * report's ts in the record (in its thread, or in the channel when the thread refused it) says it was posted: a
 * finished job whose record has neither still owes its thread a report (chat/owed-reports.ts posts it).
 */
function isDurableKey(jobId: string, key: string): boolean {
  return (
    key.startsWith(`${jobId}:step:`) ||
    key.startsWith(`${jobId}:approval:`) ||
    key === threadKeys.report(jobId) ||
    key === threadKeys.reportInChannel(jobId)
  );
}

/** Whether a job's recorded messages (the job record's `messages`) include its final report, in its thread or not. */
export function hasFinalReport(
  jobId: string,
  messages: Readonly<Record<string, string>> | undefined,
): boolean {
  return (
    messages?.[threadKeys.report(jobId)] !== undefined ||
    messages?.[threadKeys.reportInChannel(jobId)] !== undefined
  );
}

export interface FinalReportPost {
  readonly notifier: Notifier;
  readonly jobId: string;
  readonly channel: string;
  /** The thread's parent ts; null: the parent is known to the notifier by its key only (`threadKeys.parent`). */
  readonly parentTs: string | null;
  /** The finished rollout. */
  readonly state: RolloutState;
  /** The runner's clock at the time of posting (durations in the report). */
  readonly now: number;
  readonly log: Logger;
  /** Key of a note in the thread (said when the chart cannot be posted). */
  readonly noteKey: () => string;
  /** Records the report's ts once posted, under the key it was posted with; must not throw. */
  readonly remember?: (key: string, ts: string) => void;
  /** Shares the timeline chart in the thread after the report; without it, no chart. */
  readonly chart?: ChartPoster;
}

/** Where a final report went: its key and ts, or why it could not be posted anywhere. */
export type FinalReportOutcome =
  | { readonly kind: "in-thread" | "in-channel"; readonly key: string; readonly ts: string }
  | { readonly kind: "not-posted"; readonly err: unknown };

/**
 * Posts a finished rollout's final report as a reply broadcast to the channel, then its chart under it; a report the
 * thread does not take (the thread is gone, or its parent was never known here) goes to the channel on its own,
 * saying so: a rollout's ending is never dropped. The reporter calls it on `rollout-finished`; a replica's sweep calls
 * it for a finished job whose report was never posted (its replica died first). Resolves once the report and the
 * chart are settled; never rejects.
 */
export async function postFinalReport(o: FinalReportPost): Promise<FinalReportOutcome> {
  const { notifier, jobId, channel, parentTs } = o;
  try {
    const message = renderFinalReport(o.state, o.now);
    const key = threadKeys.report(jobId);
    const report = notifier.post(channel, message, {
      key,
      ...(parentTs === null ? { threadKey: threadKeys.parent(jobId) } : { threadTs: parentTs }),
      replyBroadcast: true,
    });
    const chart = o.chart === undefined ? Promise.resolve() : postChart(o, o.chart, report);
    const outcome = await report.ts.then(
      (ts): FinalReportOutcome => ({ kind: "in-thread", key, ts }),
      (err: unknown) => postReportInChannel(o, message, err),
    );
    if (outcome.kind !== "not-posted") o.remember?.(outcome.key, outcome.ts);
    await chart;
    return outcome;
  } catch (err) {
    o.log.error({ err }, "final report not posted: it could not be made");
    return { kind: "not-posted", err };
  }
}

/**
 * The chart goes under the final report once both the thread and the report are posted; a chart that cannot be
 * posted is said once in the thread, and the rollout is none the worse.
 */
async function postChart(o: FinalReportPost, chart: ChartPoster, report: PostHandle): Promise<void> {
  const { notifier, channel, state } = o;
  const parent =
    o.parentTs === null ? notifier.handleOf(threadKeys.parent(o.jobId))?.ts : Promise.resolve(o.parentTs);
  if (parent === undefined) return;
  try {
    const [threadTs] = await Promise.all([parent, report.ts]);
    const result = await chart.post({ channel, threadTs, state, now: o.now });
    if (result.kind === "posted") return;
    // By the thread's ts, not its key: a finished job's keys are forgotten once its last messages are out.
    notifier.post(
      channel,
      { text: `⚠️ The timeline chart could not be posted: ${escapeMrkdwn(result.why)}.` },
      { key: o.noteKey(), threadTs },
    );
  } catch (err) {
    o.log.warn({ err }, "no chart: the thread or its report was not posted");
  }
}

/** The report its thread did not take, posted in the channel with a line saying why. */
async function postReportInChannel(
  o: FinalReportPost,
  message: SlackMessage,
  cause: unknown,
): Promise<FinalReportOutcome> {
  o.log.warn({ err: cause }, "final report not posted in its thread; posting it in the channel");
  const why = "_This rollout's thread could not take its final report, so it is posted here._";
  const note = { type: "context", elements: [{ type: "mrkdwn", text: why }] } as const;
  const key = threadKeys.reportInChannel(o.jobId);
  const handle = o.notifier.post(
    o.channel,
    { text: `${why}\n${message.text}`, blocks: [note, ...(message.blocks ?? [])].slice(0, MAX_BLOCKS) },
    { key },
  );
  return handle.ts.then(
    (ts): FinalReportOutcome => ({ kind: "in-channel", key, ts }),
    (err: unknown) => {
      o.log.error({ err }, "final report posted neither in its thread nor in the channel");
      return { kind: "not-posted", err };
    },
  );
}

/** The placeholder parent posted before the rollout starts (the engine has no state yet). */
export function startingParent(cluster: string, argument: string, requestedBy: string): SlackMessage {
  const text = `connect-roll · ${cluster} → ${argument}: starting (requested by <@${requestedBy}>)`;
  return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text: `⏳ ${text}` } }] };
}

/** What the parent becomes when the rollout could not start after all (lock taken meanwhile, store down). */
export function notStartedParent(cluster: string, argument: string, why: string): SlackMessage {
  const text = `connect-roll · ${cluster} → ${argument}: not started: ${why}`;
  return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text: `🚫 ${text}` } }] };
}

/**
 * Turns the runner's events into the Slack thread: the parent (a bounded live summary, updated in place), one reply
 * per worker step (updated as it moves), approval prompts (updated after the decision), short notes (paused, resumed,
 * taken over) and the final report (in the parent and as a broadcast reply). Never blocks and never throws: the
 * notifier queues, coalesces and retries, so Slack being slow or down never slows the rollout.
 */
export function createThreadReporter(
  options: ThreadReporterOptions,
): (event: RolloutEvent, state: RolloutState) => void {
  const { notifier, jobId, channel } = options;
  const log = options.logger.child({ component: "thread-reporter", jobId });
  const parentKey = threadKeys.parent(jobId);
  const approvals = new Map<string, PendingApproval>();
  const run = randomUUID().slice(0, 8);
  let notes = 0;
  const { parentTs } = options;
  if (parentTs !== null) notifier.adopt(channel, parentKey, parentTs);
  const known = new Set<string>();
  for (const [key, ts] of Object.entries(options.messages ?? {})) {
    if (!isDurableKey(jobId, key)) continue;
    notifier.adopt(channel, key, ts);
    known.add(key);
  }

  const reply = (key: string, message: SlackMessage) => {
    const handle = notifier.post(channel, message, {
      key,
      ...(parentTs === null ? { threadKey: parentKey } : { threadTs: parentTs }),
    });
    if (options.remember !== undefined && isDurableKey(jobId, key) && !known.has(key)) {
      known.add(key);
      const remember = options.remember;
      handle.ts.then(
        (ts) => remember(key, ts),
        () => undefined,
      );
    }
  };
  const note = (text: string) => {
    notes += 1;
    reply(threadKeys.note(jobId, run, notes), { text });
  };

  function showStep(state: RolloutState, stepNumber: number): void {
    const step = state.steps.find((s) => s.step === stepNumber);
    if (step === undefined) return;
    const message = renderStepReply(state, step, options.now());
    const key = threadKeys.step(jobId, stepNumber);
    reply(key, message);
    notifier.update(channel, key, message);
  }

  function handle(event: RolloutEvent, state: RolloutState): void {
    switch (event.kind) {
      case "step-started":
      case "restart-issued":
      case "worker-back":
      case "gate-waiting":
      case "step-settled":
      case "step-skipped":
        showStep(state, event.step);
        break;
      case "approval-requested":
        approvals.set(event.approval.id, event.approval);
        reply(threadKeys.approval(jobId, event.approval.id), renderApprovalPrompt(state, event.approval));
        break;
      case "approval-decided": {
        const asked = approvals.get(event.approval.id);
        if (asked === undefined) {
          note(`Approval ${event.approval.kind}: ${event.approval.decision} by <@${event.approval.by}>`);
        } else {
          notifier.update(
            channel,
            threadKeys.approval(jobId, asked.id),
            renderApprovalDecided(state, asked, event.approval),
          );
        }
        if (event.approval.step !== null) showStep(state, event.approval.step);
        break;
      }
      case "rollout-paused":
        note(`⏸️ Paused by <@${event.by}> before step ${event.step}.`);
        break;
      case "rollout-resumed":
        note(`▶️ Resumed by <@${event.by}> at step ${event.step}.`);
        break;
      case "rollout-taken-over": {
        note(
          `🔁 Resumed by replica \`${options.replicaId}\` from the last checkpoint (the previous one stopped).`,
        );
        // A prompt the previous replica was waiting on: its buttons still work (decisions go through the store), and
        // this replica updates it once answered; if that replica died before posting it, it is posted now.
        if (state.phase.kind === "awaiting-approval") {
          const asked = state.phase.approval;
          approvals.set(asked.id, asked);
          const key = threadKeys.approval(jobId, asked.id);
          if (!known.has(key)) reply(key, renderApprovalPrompt(state, asked));
        }
        break;
      }
      case "rollout-finished":
        void postFinalReport({
          notifier,
          jobId,
          channel,
          parentTs,
          state,
          now: options.now(),
          log,
          noteKey: () => threadKeys.note(jobId, run, ++notes),
          ...(options.remember === undefined ? {} : { remember: options.remember }),
          ...(options.chart === undefined ? {} : { chart: options.chart }),
        });
        break;
      case "store-unreachable":
        note(
          `⚠️ Paused: Redis unreachable since <!date^${Math.floor(event.since / 1000)}^{time_secs}|${new Date(event.since).toISOString()}>. No worker is restarted until it answers; retrying while the lock's lease lasts.`,
        );
        break;
      case "rollout-interrupted":
        note(
          event.why === "shutdown"
            ? "⏹️ This replica is stopping: the rollout is checkpointed and another replica resumes it."
            : event.why === "record-lost"
              ? `⏹️ Stopped: Redis lost this rollout's record; no worker is restarted by it any more. ${
                  state.target.kind === "upgrade"
                    ? "Start it again: workers already on the target version are skipped."
                    : `Restart the rest with \`/connect-roll ${state.cluster} restart --since ${new Date(state.target.since ?? state.startedAt).toISOString()}\` (or \`connect-roll run … ${state.cluster} restart --since\` the same time): workers started since then are skipped.`
                }`
              : `⏹️ Stopped: this replica lost the cluster's lock (${event.detail}); no further restart from it. Another replica resumes from the checkpoint once Redis answers.`,
        );
        break;
      case "store-recovered":
        note("▶️ Resumed: Redis answers again.");
        break;
      case "data-flow-unseen":
        note(`👁️ ${escapeMrkdwn(dataFlowUnseenText(event.workers))}`);
        break;
      case "restart-learned":
        note(`⏱️ ${escapeMrkdwn(restartLearnedText(event))}`);
        break;
      case "canary-soaking":
        note(`🐤 ${escapeMrkdwn(canarySoakingText(event.worker, event.soakMs))}`);
        break;
      case "canary-passed":
        note(`🐤 ${escapeMrkdwn(canaryPassedText(event.worker, event.figures))}`);
        break;
      case "rollout-planned":
      case "step-reordered":
        break;
    }
    notifier.update(channel, parentKey, renderParent(state, options.now()));
  }

  return (event, state) => {
    try {
      handle(event, state);
    } catch (err) {
      log.error({ err, event: event.kind }, "thread reporter failed on an event");
    }
  };
}
