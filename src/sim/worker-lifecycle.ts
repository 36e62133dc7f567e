import type { ControlResult } from "./control-result.js";
import { crashMember, joinGroup, leaveGroup } from "./group-coordinator.js";
import { workerProtocols } from "./protocol-model.js";
import { emit, type SimContext, type WorkerModel } from "./sim-context.js";
import type { StopMode } from "./sim-types.js";
import { stopAllWork } from "./worker-runtime.js";

/**
 * A simulated worker process: it starts (its boot time with jitter, then it joins the group) and stops, gracefully
 * (its work stopped with statuses written, then LeaveGroup) or by a crash (nothing written, expired after the session
 * timeout).
 */
export function becomeRunning(ctx: SimContext, w: WorkerModel): void {
  w.pendingStart = null;
  w.state = "running";
  w.starts += 1;
  emit(ctx, { kind: "worker-up", worker: w.name });
  w.member = joinGroup(ctx, w);
}

function bootTime(ctx: SimContext, w: WorkerModel): number {
  const jitter = ctx.options.restartJitter * (2 * ctx.prng.next() - 1);
  return Math.max(0, Math.round(w.restartMs * (1 + jitter)));
}

/** The process starts (on `version`, if given) and joins the group once booted. */
export function beginStart(ctx: SimContext, w: WorkerModel, version: string | undefined): void {
  if (version !== undefined) w.version = version;
  w.state = "starting";
  w.startTimeMs = ctx.scheduler.now();
  w.pendingStart = ctx.scheduler.after(bootTime(ctx, w), () => becomeRunning(ctx, w));
}

export function haltWorker(ctx: SimContext, w: WorkerModel, mode: StopMode): void {
  ctx.scheduler.cancel(w.pendingStart);
  w.pendingStart = null;
  const member = w.member;
  const wasRunning = w.state === "running";
  w.state = "stopped";
  w.startTimeMs = null;
  w.member = null;
  // Connect.stop() stops the REST server first, then the herder (docs/connect-behaviour.md#members-and-rebalances).
  if (wasRunning) emit(ctx, { kind: "worker-down", worker: w.name });
  if (!member) return;
  if (mode === "graceful") {
    stopAllWork(ctx, member, { writeStatus: true, workerStaysUp: false, shutdown: true });
    member.alive = false;
    leaveGroup(ctx, member);
  } else {
    stopAllWork(ctx, member, { writeStatus: false, workerStaysUp: false });
    crashMember(ctx, member);
  }
}

/** A version the worker could not start on (Kafka would reject its connect.protocol, or it is not modelled). */
export function refusedVersion(w: WorkerModel, version: string | undefined): ControlResult | null {
  if (version === undefined) return null;
  const protocols = workerProtocols(version, w.connectProtocol);
  return protocols.kind === "refused"
    ? { kind: "invalid", message: `${w.name}: ${protocols.message}` }
    : null;
}
