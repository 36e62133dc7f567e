import { AppError, ErrorCode } from "../core/errors.js";
import type { AssignmentRoundResult, MemberAssignment } from "./assignor/types.js";
import { groupProtocolOf, type SimProtocol } from "./protocol-model.js";
import { configuredTasks, type Member, type SimContext, type WorkerModel } from "./sim-context.js";
import { startConnectors, startTasks, stopAllWork, stopConnectors, stopTasks } from "./worker-runtime.js";

/**
 * The simulated group coordinator and leader (docs/connect-behaviour.md#members-and-rebalances, #the-leader): joins,
 * graceful leaves (rebalance now), crashes (noticed after the session timeout), protocol negotiation per rebalance, the
 * leader's assignor, follow-up rebalances after revocations and the scheduled-delay timers of the members.
 */
const EMPTY: MemberAssignment = {
  assigned: { connectors: [], tasks: [] },
  revoked: { connectors: [], tasks: [] },
};

export function joinGroup(ctx: SimContext, worker: WorkerModel): Member {
  const member: Member = {
    // client.id + "-" + a random UUID (the broker's member id): before 3.7 every worker's client.id is "connect-1" (a
    // per-JVM sequence), so the order of members — the assignors' tie-break — is random on every start.
    memberId: `connect-1-${ctx.prng.hex(8)}-${ctx.prng.hex(4)}`,
    worker,
    alive: true,
    connectors: new Map(),
    tasks: new Map(),
    lastProtocol: null,
    lastGeneration: null,
    completedRebalances: 0,
    lastRebalanceAt: null,
    expiry: null,
  };
  ctx.group.members.push(member);
  requestRebalance(ctx);
  return member;
}

function removeMember(ctx: SimContext, member: Member): void {
  const group = ctx.group;
  const i = group.members.indexOf(member);
  if (i >= 0) group.members.splice(i, 1);
  ctx.scheduler.cancel(member.expiry);
  member.expiry = null;
  if (group.leader === member) {
    group.leader = null;
    group.assignors = null;
  }
}

/** Graceful shutdown: LeaveGroup on close, the broker rebalances at once. */
export function leaveGroup(ctx: SimContext, member: Member): void {
  removeMember(ctx, member);
  requestRebalance(ctx);
}

/** Crash: no LeaveGroup; the broker expires the member after session.timeout.ms. */
export function crashMember(ctx: SimContext, member: Member): void {
  member.alive = false;
  member.expiry = ctx.scheduler.after(ctx.options.sessionTimeoutMs, () => {
    removeMember(ctx, member);
    const rebalance = ctx.group.rebalance;
    if (rebalance?.waiting) {
      rebalance.waiting = false;
      rebalance.completion = ctx.scheduler.after(ctx.options.rebalanceMs, () => completeRebalance(ctx));
    } else {
      requestRebalance(ctx);
    }
  });
}

/** Starts a rebalance unless one is in progress (a join during it is folded in). */
export function requestRebalance(ctx: SimContext): void {
  const group = ctx.group;
  if (group.rebalance) return;
  // onJoinPrepare: members whose previous generation was eager revoke everything
  // (docs/connect-behaviour.md#leaving-eager).
  let stopTheWorld = false;
  for (const member of group.members) {
    if (!member.alive || member.lastProtocol !== "eager") continue;
    stopTheWorld = true;
    stopAllWork(ctx, member, { writeStatus: true, workerStaysUp: true });
  }
  group.rebalance = {
    stopTheWorld,
    waiting: false,
    completion: ctx.scheduler.after(ctx.options.rebalanceMs, () => completeRebalance(ctx)),
  };
}

function chooseLeader(ctx: SimContext, live: readonly Member[]): Member | undefined {
  const sorted = [...live].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  return sorted[ctx.prng.int(sorted.length)];
}

function setDelayTimer(ctx: SimContext, delayMs: number): void {
  const group = ctx.group;
  ctx.scheduler.cancel(group.delayTimer);
  group.delayTimer = null;
  group.delayDeadline = null;
  if (delayMs <= 0) return;
  const deadline = ctx.scheduler.now() + delayMs;
  group.delayDeadline = deadline;
  // Every member arms its own timer at now + delay; they all fire at once, so one event models them.
  group.delayTimer = ctx.scheduler.at(deadline, () => {
    group.delayTimer = null;
    group.delayDeadline = null;
    if (group.members.some((m) => m.alive)) requestRebalance(ctx);
  });
}

function applyAssignment(ctx: SimContext, member: Member, a: MemberAssignment, eager: boolean): boolean {
  const revokedTasks = new Set(a.revoked.tasks);
  const revokedConnectors = new Set(a.revoked.connectors);
  if (eager) {
    const keepTasks = new Set(a.assigned.tasks);
    const keepConnectors = new Set(a.assigned.connectors);
    for (const t of member.tasks.keys()) if (!keepTasks.has(t)) revokedTasks.add(t);
    for (const c of member.connectors.keys()) if (!keepConnectors.has(c)) revokedConnectors.add(c);
  }
  const stopOptions = { writeStatus: true, workerStaysUp: true };
  stopTasks(
    ctx,
    member,
    [...revokedTasks].filter((t) => member.tasks.has(t)),
    stopOptions,
  );
  stopConnectors(
    ctx,
    member,
    [...revokedConnectors].filter((c) => member.connectors.has(c)),
    stopOptions,
  );
  startTasks(
    ctx,
    member,
    a.assigned.tasks.filter((t) => !revokedTasks.has(t) && !member.tasks.has(t)),
  );
  startConnectors(
    ctx,
    member,
    a.assigned.connectors.filter((c) => !revokedConnectors.has(c) && !member.connectors.has(c)),
  );
  return !eager && (a.revoked.tasks.length > 0 || a.revoked.connectors.length > 0);
}

function runAssignor(ctx: SimContext, live: readonly Member[], protocol: SimProtocol): AssignmentRoundResult {
  const group = ctx.group;
  let assignors = group.assignors;
  const leader = group.leader;
  if (!assignors && leader) {
    const leaderVersion = leader.worker.version;
    const maxDelayMs = leader.worker.delayMs;
    assignors = {
      incremental: ctx.assignorFactory({ protocol: "sessioned", leaderVersion, maxDelayMs }),
      eager: ctx.assignorFactory({ protocol: "eager", leaderVersion, maxDelayMs }),
    };
    group.assignors = assignors;
  }
  if (!assignors) throw new AppError(ErrorCode.Internal, "rebalance without a leader");
  const assignor = protocol === "eager" ? assignors.eager : assignors.incremental;
  return assignor.performAssignment({
    now: ctx.scheduler.now(),
    generation: group.generation,
    lastCompletedGeneration: group.generation - 1,
    members: live.map((m) => ({
      memberId: m.memberId,
      owned: { connectors: [...m.connectors.keys()], tasks: [...m.tasks.keys()] },
    })),
    configured: { connectors: [...ctx.connectors.keys()], tasks: configuredTasks(ctx) },
  });
}

function completeRebalance(ctx: SimContext): void {
  const group = ctx.group;
  const rebalance = group.rebalance;
  if (!rebalance) return;
  if (group.members.some((m) => !m.alive)) {
    // The join phase waits for the crashed member until the broker expires it.
    rebalance.completion = null;
    rebalance.waiting = true;
    return;
  }
  group.rebalance = null;
  const live = [...group.members];
  if (live.length === 0) {
    group.leader = null;
    group.assignors = null;
    setDelayTimer(ctx, 0);
    return;
  }
  group.generation += 1;
  const now = ctx.scheduler.now();
  // The broker's choice from the members' JoinGroup protocols (protocol-model.ts).
  const protocol = groupProtocolOf(live.map((m) => m.worker)) ?? "eager";
  group.protocol = protocol;
  if (!group.leader || !live.includes(group.leader)) {
    group.leader = chooseLeader(ctx, live) ?? null;
    group.assignors = null;
  }
  const eager = protocol === "eager";
  const result = runAssignor(ctx, live, protocol);
  let followUp = false;
  for (const member of live) {
    const a = result.byMember.get(member.memberId) ?? EMPTY;
    if (applyAssignment(ctx, member, a, eager)) followUp = true;
    member.lastProtocol = protocol;
    member.lastGeneration = group.generation;
    member.completedRebalances += 1;
    member.lastRebalanceAt = now;
  }
  group.rebalances += 1;
  if (eager || rebalance.stopTheWorld) group.eagerRebalances += 1;
  setDelayTimer(ctx, eager ? 0 : result.delayMs);
  if (followUp) requestRebalance(ctx);
}
