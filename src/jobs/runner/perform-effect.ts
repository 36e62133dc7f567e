import { setTimeout as delay } from "node:timers/promises";
import { AppError, ErrorCode, toAppError } from "../../core/errors.js";
import type { RolloutEffect, RolloutInput } from "../../core/rollout/rollout-io.js";
import type { RolloutState } from "../../core/rollout/rollout-state.js";
import { targetVersionFor } from "../../core/rollout/transitions.js";
import type { ClusterSnapshot } from "../../core/snapshot.js";
import { type RunContext, withStore } from "./run-context.js";
import { timeLimitInput, untilTimeLimit } from "./time-limit.js";

/** Carries out the effect `decide` asked for and returns what came of it as the next input. */

/** A pause/resume/abort asked from chat since the last one the state machine saw, as an input. */
async function pendingControl(ctx: RunContext, state: RolloutState): Promise<RolloutInput | null> {
  const job = await withStore(ctx, () => ctx.deps.store.loadJob(ctx.record.id));
  const control = job.control;
  if (!control) return null;
  // Ordered by the store's sequence number, not by `at`: replicas' wall clocks may disagree.
  if (control.seq <= ctx.lastControlSeq) return null;
  ctx.lastControlSeq = control.seq;
  const now = ctx.deps.clock.now();
  if (control.abort) return { kind: "control-requested", now, action: "abort", by: control.by };
  const paused = state.phase.kind === "paused" || state.pendingControl?.action === "pause";
  if (control.pause && !paused) return { kind: "control-requested", now, action: "pause", by: control.by };
  if (!control.pause && paused) return { kind: "control-requested", now, action: "resume", by: control.by };
  return null;
}

export async function perform(
  ctx: RunContext,
  state: RolloutState,
  action: RolloutEffect,
): Promise<RolloutInput> {
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
      // A prompt nobody answers does not outlast the run's time limit.
      const waited = await untilTimeLimit(ctx, (until) =>
        withStore(ctx, () => deps.approvals.wait(ctx.record, action.approval, until)),
      );
      if (waited.kind === "time-up") return waited.input;
      const decision = waited.value;
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
        const timeUp = timeLimitInput(ctx);
        if (timeUp) return timeUp;
        const control = await pendingControl(ctx, state);
        if (control) return control;
        await deps.clock.sleep(deps.controlPollMs ?? state.settings.pollIntervalMs, signal);
      }
    }
    case "restart-tasks": {
      const results = (await deps.reader.restartTasks?.(action.tasks, signal)) ?? [];
      ctx.log.info({ tasks: results }, "failed tasks restart asked");
      // The restarted tasks report their new state through the status topic: read at the gate's cadence.
      await deps.clock.sleep(state.settings.pollIntervalMs, signal);
      const snapshot = await deps.reader.read(signal);
      return { kind: "cluster-read", now: deps.clock.now(), snapshot };
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
  const version = step ? targetVersionFor(state, step) : state.target.version;
  // A step with a version of its own (a failed canary's rollback) sets that version's image, not the target's.
  const image = step?.toVersion === undefined ? state.image : (deps.imageFor?.(step.toVersion) ?? null);
  ctx.log.info({ workerId: worker.workerId, step: action.step, stepId: action.stepId }, "restart issued");
  const watch = state.flow.visible ? watchWhileRestarting(ctx, state.settings.pollIntervalMs) : null;
  try {
    const receipt = await deps.restarter.restart({
      worker,
      kind: step?.toVersion === undefined ? state.target.kind : "upgrade",
      version,
      image,
      stepId: action.stepId,
      signal,
    });
    const reads = await watch?.stop();
    return {
      kind: "restart-accepted",
      now: now(),
      step: action.step,
      detail: receipt.detail,
      ...(reads ? { reads } : {}),
    };
  } catch (e) {
    const reads = await watch?.stop();
    if (signal.aborted) throw e;
    const err = toAppError(e, ErrorCode.RestartFailed);
    ctx.log.warn({ err, step: action.step }, "restart failed");
    return {
      kind: "restart-failed",
      now: now(),
      step: action.step,
      message: err.message,
      mayHaveRun: err.code !== ErrorCode.RestartRefused,
      ...(reads ? { reads } : {}),
    };
  }
}

/**
 * Reads of the whole cluster every poll interval while the executor works (an executor that stops the worker before
 * it returns would otherwise hide when its tasks last moved data). A failed read is left out: the restart matters,
 * not this look. Paced in real time, not on the run's clock: it waits for an I/O call, and on a simulator's virtual
 * clock a sleep would move the simulation on while the executor's call is still in flight.
 */
function watchWhileRestarting(ctx: RunContext, intervalMs: number): { stop(): Promise<ClusterSnapshot[]> } {
  const reads: ClusterSnapshot[] = [];
  const stopped = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stopped.signal]);
  const loop = (async () => {
    while (!signal.aborted) {
      try {
        await delay(intervalMs, undefined, { signal });
        reads.push(await ctx.deps.reader.read(signal));
      } catch {
        if (signal.aborted) return;
      }
    }
  })();
  return {
    async stop() {
      stopped.abort();
      await loop;
      return reads;
    },
  };
}
