import type { Logger } from "pino";
import type { ClusterReader } from "../connect/cluster-reader.js";
import type { Clock } from "../core/clock.js";
import { AppError, ErrorCode, isAppError, toAppError } from "../core/errors.js";
import { decide, nextAction } from "../core/rollout/decide.js";
import type {
  PendingApproval,
  RolloutEffect,
  RolloutEvent,
  RolloutInput,
  RolloutState,
  Transition,
} from "../core/rollout/rollout-types.js";
import type { RestartTarget, WorkerRestarter } from "../restart/worker-restarter.js";
import type { Decision, JobRecord } from "./job-record.js";
import type { Lease } from "./job-store.js";
import { recordWithState } from "./rollout-record.js";
import type { RunnerStore } from "./store-roles.js";

/** How approval prompts get answered: by people through the store (chat), or by a policy (CLI flags, prompts). */
export interface ApprovalSource {
  wait(job: JobRecord, approval: PendingApproval, signal: AbortSignal): Promise<Decision>;
}

/** Everything the runner does I/O with. */
export interface RunnerDeps {
  readonly store: RunnerStore;
  readonly reader: ClusterReader;
  readonly restarter: WorkerRestarter;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly approvals: ApprovalSource;
  /** Worker addresses by name (what the executor needs). */
  readonly workers: ReadonlyMap<string, RestartTarget>;
  /** Observers of events (thread notifier, stdout). Must not throw or block. */
  readonly onEvent?: (event: RolloutEvent, state: RolloutState) => void;
  /** Interval at which a paused rollout re-reads its control state. Default: the poll interval. */
  readonly controlPollMs?: number;
  /** Backoff of store calls that fail while the lease is valid: first wait, doubled up to `maxMs`. */
  readonly storeRetry?: { readonly baseMs: number; readonly maxMs: number };
}

export type RunOutcome =
  | { readonly kind: "finished"; readonly state: RolloutState }
  /** The lease was lost (expired, forced, taken over): this runner stopped without issuing further effects. */
  | { readonly kind: "lock-lost"; readonly state: RolloutState };

interface RunContext {
  readonly deps: RunnerDeps;
  readonly lease: Lease;
  readonly signal: AbortSignal;
  readonly log: Logger;
  record: JobRecord;
  /** Control requests already fed into the state machine: by their `seq` (the store's order of requests). */
  lastControlSeq: number;
  /** The same for requests recorded before `seq` existed (by their `at`). */
  lastControlAt: number;
  /** Wall-clock ms since which the store has failed every call, or null while it answers. */
  outageSince: number | null;
  /** The latest state, for events emitted outside a transition. */
  state: RolloutState;
}

const AUDITED: ReadonlySet<RolloutEvent["kind"]> = new Set([
  "restart-issued",
  "step-settled",
  "step-skipped",
  "approval-decided",
  "rollout-paused",
  "rollout-resumed",
  "rollout-finished",
]);

function auditLine(event: RolloutEvent): { action: string; detail: string; actor: string | null } {
  switch (event.kind) {
    case "restart-issued":
      return {
        action: "restart-issued",
        detail: `step ${event.step}: ${event.worker}: ${event.detail}`,
        actor: null,
      };
    case "step-settled":
      return { action: "step-settled", detail: `step ${event.step}: ${event.worker}`, actor: null };
    case "step-skipped":
      return {
        action: "step-skipped",
        detail: `step ${event.step}: ${event.worker}: ${event.reason}`,
        actor: null,
      };
    case "approval-decided":
      return {
        action: event.approval.decision === "abort" ? "aborted" : "approved",
        detail: `${event.approval.kind}: ${event.approval.decision}`,
        actor: event.approval.by,
      };
    case "rollout-paused":
      return { action: "paused", detail: `before step ${event.step}`, actor: event.by };
    case "rollout-resumed":
      return { action: "resumed", detail: `at step ${event.step}`, actor: event.by };
    case "rollout-finished":
      return { action: event.result, detail: event.reason, actor: null };
    default:
      return { action: event.kind, detail: "", actor: null };
  }
}

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
    lastControlAt: 0,
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
      if (isAppError(e, ErrorCode.JobNotFound)) return recordGone(ctx, t.state, e);
      throw e;
    }
    await publish(ctx, t);
    const action = t.effects.at(-1) ?? nextAction(t.state);
    if (action.kind === "finish") return { kind: "finished", state: t.state };
    if (signal.aborted) return interrupted(ctx, t.state, signal.reason);
    let input: RolloutInput;
    try {
      input = await perform(ctx, t.state, action);
    } catch (e) {
      if (signal.aborted) return interrupted(ctx, t.state, signal.reason);
      if (isAppError(e, ErrorCode.JobNotFound)) return recordGone(ctx, t.state, e);
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
function recordGone(ctx: RunContext, state: RolloutState, cause: unknown): RunOutcome {
  ctx.log.error({ err: cause }, "the job's record is gone from the store; stopping without further restarts");
  notify(ctx, {
    kind: "rollout-interrupted",
    why: "record-lost",
    detail: "Redis lost this rollout's record (a restart without persistence, FLUSHALL or an eviction)",
  });
  return { kind: "lock-lost", state };
}

/** Stops on a lost lease or a shutdown, and says which (the signal's reason, or the store's refusal). */
function interrupted(ctx: RunContext, state: RolloutState, reason: unknown): RunOutcome {
  const lost = isAppError(reason, ErrorCode.LockLost) || isAppError(ctx.signal.reason, ErrorCode.LockLost);
  const detail = reason instanceof Error ? reason.message : String(reason ?? "stopped");
  notify(
    ctx,
    lost
      ? { kind: "rollout-interrupted", why: "lease-lost", detail }
      : { kind: "rollout-interrupted", why: "shutdown", detail },
  );
  return { kind: "lock-lost", state };
}

function notify(ctx: RunContext, event: RolloutEvent): void {
  try {
    ctx.deps.onEvent?.(event, ctx.state);
  } catch (err) {
    ctx.log.warn({ err }, "event observer failed");
  }
}

/** Waits `ms` of real time (a Redis outage is real time, even under a virtual rollout clock); rejects on abort. */
function backoff(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs a store call, retrying retryable failures (`store/unavailable`: connection refused, timeout, failover) with
 * backoff for as long as the lease is valid — the lock keeper aborts `signal` when it expires, and then this rejects
 * with the signal's reason. The first failure emits `store-unreachable`, the first success after it
 * `store-recovered`. Nothing else happens meanwhile: a restart is only sent after its checkpoint was written.
 */
async function withStore<T>(ctx: RunContext, fn: () => Promise<T>): Promise<T> {
  const { baseMs, maxMs } = ctx.deps.storeRetry ?? { baseMs: 100, maxMs: 2_000 };
  for (let attempt = 0; ; attempt++) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    // The outage began when the first failing call was sent (a frozen Redis answers nothing for a command timeout).
    const sentAt = Date.now();
    try {
      const value = await fn();
      if (ctx.outageSince !== null) {
        const since = ctx.outageSince;
        ctx.outageSince = null;
        ctx.log.warn({ downMs: Date.now() - since }, "job store answers again");
        notify(ctx, { kind: "store-recovered", since, downMs: Date.now() - since });
      }
      return value;
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (!isAppError(e) || !e.retryable) throw e;
      if (ctx.outageSince === null) {
        ctx.outageSince = sentAt;
        ctx.log.warn({ err: e }, "job store unreachable; retrying while the lease lasts");
        notify(ctx, { kind: "store-unreachable", since: ctx.outageSince, error: e.message });
      }
      await backoff(Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 16)), ctx.signal);
    }
  }
}

async function checkpoint(ctx: RunContext, state: RolloutState): Promise<void> {
  const next = recordWithState(ctx.record, state);
  await ctx.deps.store.saveJob(ctx.lease, next);
  ctx.record = next;
}

async function publish(ctx: RunContext, t: Transition): Promise<void> {
  for (const effect of t.effects) {
    if (effect.kind !== "emit") continue;
    try {
      ctx.deps.onEvent?.(effect.event, t.state);
    } catch (err) {
      ctx.log.warn({ err }, "event observer failed");
    }
    if (AUDITED.has(effect.event.kind)) {
      const line = auditLine(effect.event);
      await ctx.deps.store
        .appendAudit(ctx.record.id, {
          at: t.state.updatedAt,
          actor: line.actor ?? `bot:${ctx.lease.owner}`,
          action: line.action,
          detail: line.detail,
        })
        .catch((err: unknown) => ctx.log.warn({ err }, "audit append failed"));
    }
  }
}

/** A pause/resume/abort asked from chat since the last one the state machine saw, as an input. */
async function pendingControl(ctx: RunContext, state: RolloutState): Promise<RolloutInput | null> {
  const job = await withStore(ctx, () => ctx.deps.store.loadJob(ctx.record.id));
  const control = job.control;
  if (!control) return null;
  // Ordered by the store's sequence number, not by `at`: replicas' wall clocks may disagree.
  if (control.seq !== undefined) {
    if (control.seq <= ctx.lastControlSeq) return null;
    ctx.lastControlSeq = control.seq;
  } else {
    if (control.at <= ctx.lastControlAt) return null;
    ctx.lastControlAt = control.at;
  }
  const now = ctx.deps.clock.now();
  if (control.abort) return { kind: "control-requested", now, action: "abort", by: control.by };
  const paused = state.phase.kind === "paused" || state.pendingControl?.action === "pause";
  if (control.pause && !paused) return { kind: "control-requested", now, action: "pause", by: control.by };
  if (!control.pause && paused) return { kind: "control-requested", now, action: "resume", by: control.by };
  return null;
}

async function perform(ctx: RunContext, state: RolloutState, action: RolloutEffect): Promise<RolloutInput> {
  const { deps, signal } = ctx;
  switch (action.kind) {
    case "read-cluster": {
      if (action.afterMs > 0) await deps.clock.sleep(action.afterMs, signal);
      const control = await pendingControl(ctx, state);
      if (control) return control;
      const snapshot = await deps.reader.read(signal);
      return { kind: "cluster-read", now: deps.clock.now(), snapshot };
    }
    case "probe-worker": {
      if (action.afterMs > 0) await deps.clock.sleep(action.afterMs, signal);
      // No look at the store here: a pause or abort asked while a worker restarts applies before the next restart
      // anyway, and the read of the whole cluster that follows a probe finding the worker back looks (a probe may
      // come every 250 ms; loading the job record that often would cost more than the probe).
      // A reader without a probe answers with a read of the whole cluster: `decide` takes either.
      if (!deps.reader.probe)
        return { kind: "cluster-read", now: deps.clock.now(), snapshot: await deps.reader.read(signal) };
      const worker = await deps.reader.probe(action.worker, { metrics: action.metrics }, signal);
      return { kind: "worker-probed", now: deps.clock.now(), worker };
    }
    case "restart-worker": {
      // Contract with `decide`: a control fed in the `restarting` phase means the restart was NOT sent.
      const control = await pendingControl(ctx, state);
      if (control && control.kind === "control-requested" && control.action !== "resume") {
        // A pause or abort asked at the last moment still takes effect before the restart is sent.
        return control;
      }
      return restartWorker(ctx, state, action);
    }
    case "await-approval": {
      const decision = await withStore(ctx, () => deps.approvals.wait(ctx.record, action.approval, signal));
      return {
        kind: "approval-decided",
        now: deps.clock.now(),
        approvalId: action.approval.id,
        decision: decision.decision,
        by: decision.by,
      };
    }
    case "await-resume": {
      for (;;) {
        const control = await pendingControl(ctx, state);
        if (control) return control;
        await deps.clock.sleep(deps.controlPollMs ?? state.settings.pollIntervalMs, signal);
      }
    }
    case "emit":
    case "finish":
      throw new AppError(ErrorCode.Internal, `runner cannot perform ${action.kind} as an action`);
  }
}

async function restartWorker(
  ctx: RunContext,
  state: RolloutState,
  action: Extract<RolloutEffect, { kind: "restart-worker" }>,
): Promise<RolloutInput> {
  const { deps, signal } = ctx;
  const worker = deps.workers.get(action.worker);
  const now = () => deps.clock.now();
  if (!worker)
    return {
      kind: "restart-failed",
      now: now(),
      step: action.step,
      message: `no executor address for ${action.worker}`,
      mayHaveRun: false,
    };
  const step = state.steps[action.step - 1];
  const version = state.target.kind === "upgrade" ? state.target.version : (step?.fromVersion ?? "");
  ctx.log.info({ workerId: worker.workerId, step: action.step, stepId: action.stepId }, "restart issued");
  try {
    const receipt = await deps.restarter.restart({
      worker,
      kind: state.target.kind,
      version,
      image: state.image,
      stepId: action.stepId,
      signal,
    });
    return { kind: "restart-accepted", now: now(), step: action.step, detail: receipt.detail };
  } catch (e) {
    if (signal.aborted) throw e;
    const err = toAppError(e, ErrorCode.RestartFailed);
    ctx.log.warn({ err, step: action.step }, "restart failed");
    return {
      kind: "restart-failed",
      now: now(),
      step: action.step,
      message: err.message,
      mayHaveRun: err.code !== ErrorCode.RestartRefused,
    };
  }
}
