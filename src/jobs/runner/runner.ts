import { ErrorCode, isAppError } from "../../core/errors.js";
import { decide } from "../../core/rollout/decide.js";
import type { RolloutInput, Transition } from "../../core/rollout/rollout-io.js";
import type { RolloutState } from "../../core/rollout/rollout-state.js";
import { nextAction } from "../../core/rollout/transitions.js";
import type { JobRecord } from "../store/job-record.js";
import type { Lease } from "../store/job-store.js";
import { perform } from "./perform-effect.js";
import { checkpoint, notify, type RunContext, withStore } from "./run-context.js";
import { publish } from "./runner-audit.js";
import type { RunnerDeps, RunOutcome } from "./runner-deps.js";
import { timeLimitInput } from "./time-limit.js";

/**
 * Drives a rollout: load → decide → checkpoint (fenced) → effect → decide … until it finishes or the lease is lost.
 * The checkpoint is written before every effect, so a restart is recorded as issued before it is sent: a replica that
 * takes over verifies it instead of repeating it. The lease's signal (lock keeper) stops everything at once.
 */
export async function runRollout(
  deps: RunnerDeps,
  record: JobRecord,
  lease: Lease,
  signal: AbortSignal,
  first: Transition,
): Promise<RunOutcome> {
  const ctx: RunContext = {
    deps,
    lease,
    signal,
    log: deps.logger.child({ component: "runner", jobId: record.id, cluster: record.cluster }),
    record,
    // From 0, not from the stored control: a pause or abort recorded while no runner was alive (the previous owner
    // crashed before reading it) must still apply after a takeover. Pause/resume are idempotent against the state.
    lastControlSeq: 0,
    outageSince: null,
    state: first.state,
  };
  let t = first;
  for (;;) {
    ctx.state = t.state;
    try {
      await withStore(ctx, () => checkpoint(ctx, t.state));
    } catch (e) {
      if (signal.aborted || isAppError(e, ErrorCode.LockLost)) return interrupted(ctx, t.state, e);
      if (isAppError(e, ErrorCode.JobNotFound)) return await recordGone(ctx, t.state, e);
      throw e;
    }
    await publish(ctx, t);
    const action = t.effects.at(-1) ?? nextAction(t.state);
    if (action.kind === "finish") return { kind: "finished", state: t.state };
    if (signal.aborted) return interrupted(ctx, t.state, signal.reason);
    let input: RolloutInput;
    try {
      // Past the time limit, the rollout stops here, before the next effect (a restart included: it is not sent).
      input = timeLimitInput(ctx) ?? (await perform(ctx, t.state, action));
    } catch (e) {
      if (signal.aborted) return interrupted(ctx, t.state, signal.reason);
      if (isAppError(e, ErrorCode.JobNotFound)) return await recordGone(ctx, t.state, e);
      throw e;
    }
    t = decide(t.state, input);
  }
}

/**
 * The job's record vanished under a running job (Redis restarted without persistence, FLUSHALL, an eviction under
 * `allkeys-*`): its lock went with it, so this runner can prove nothing and stops like on a lost lease. A rerun
 * learns from the cluster what is done (versions, process start times).
 */
async function recordGone(ctx: RunContext, state: RolloutState, cause: unknown): Promise<RunOutcome> {
  ctx.log.error({ err: cause }, "the job's record is gone from the store; stopping without further restarts");
  // The mark tells a replica that remembers the record not to write it back: this thread proposes the rerun instead.
  await bounded(ctx.deps.store.markRecordLost(ctx.record.cluster, ctx.record.id, RECORD_LOST_MARK_MS)).catch(
    (err: unknown) => ctx.log.warn({ err }, "could not mark the record lost; another replica may restore it"),
  );
  notify(ctx, {
    kind: "rollout-interrupted",
    why: "record-lost",
    detail: "Redis lost this rollout's record (a restart without persistence, FLUSHALL or an eviction)",
  });
  return { kind: "lock-lost", state };
}

/**
 * Stops on a lost lease or a shutdown, and says which (the signal's reason, or the store's refusal). A lease lost
 * because Redis forgot everything (the lock keeper's renewal found no lock) is a lost record: no replica can resume
 * it, so the thread must propose the rerun rather than promise a takeover. One bounded read tells them apart.
 */
async function interrupted(ctx: RunContext, state: RolloutState, reason: unknown): Promise<RunOutcome> {
  const lost = isAppError(reason, ErrorCode.LockLost) || isAppError(ctx.signal.reason, ErrorCode.LockLost);
  if (lost && (await recordMissing(ctx))) return recordGone(ctx, state, reason);
  const detail = reason instanceof Error ? reason.message : String(reason ?? "stopped");
  notify(
    ctx,
    lost
      ? { kind: "rollout-interrupted", why: "lease-lost", detail }
      : { kind: "rollout-interrupted", why: "shutdown", detail },
  );
  return { kind: "lock-lost", state };
}

const RECORD_CHECK_MS = 2_000;
/** How long a record-lost mark lives: longer than any replica waits before it writes a vanished record back. */
const RECORD_LOST_MARK_MS = 60 * 60_000;

/** Resolves with the call's answer, or with "timeout" after RECORD_CHECK_MS. */
async function bounded<T>(call: Promise<T>): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), RECORD_CHECK_MS);
  });
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** True only when the store answers that the job's record does not exist (not on a timeout or another error). */
async function recordMissing(ctx: RunContext): Promise<boolean> {
  try {
    // Found, or no answer in time: not known to be missing.
    await bounded(ctx.deps.store.loadJob(ctx.record.id));
    return false;
  } catch (e) {
    return isAppError(e, ErrorCode.JobNotFound);
  }
}
