import { groupProtocolOf, workerProtocols } from "./protocol-model.js";
import { configuredTasks, type SimContext } from "./sim-context.js";
import type { SimState, TaskStateView, WorkerStateView } from "./sim-types.js";
import { sortNames, sortTaskKeys } from "./task-order.js";

/** Builds the exact `GET /sim/state` object (DESIGN §4) from the model. */
export function buildSimState(ctx: SimContext): SimState {
  const group = ctx.group;
  const now = ctx.scheduler.now();
  const workers: WorkerStateView[] = ctx.workers.map((w) => {
    const member = w.member;
    const protocols = workerProtocols(w.version, w.connectProtocol);
    return {
      name: w.name,
      workerId: w.workerId,
      url: w.url,
      version: w.version,
      connectProtocol: protocols.kind === "joins" ? protocols.mode : "eager",
      state: w.state,
      joined: member !== null && member.lastGeneration !== null,
      connectors: member ? sortNames(member.connectors.keys()) : [],
      tasks: member ? sortTaskKeys(member.tasks.keys()) : [],
    };
  });
  const assigned = new Set<string>();
  for (const m of group.members) if (m.alive) for (const t of m.tasks.keys()) assigned.add(t);
  const configured = sortTaskKeys(configuredTasks(ctx));
  const tasks: TaskStateView[] = configured.map((id) => {
    const s = ctx.status.getTask(id);
    return { id, state: s?.state ?? "UNASSIGNED", workerId: s?.workerId ?? null };
  });
  const restarts: Record<string, number> = {};
  for (const w of ctx.workers) restarts[w.name] = Math.max(0, w.starts - 1);
  const protocol =
    group.protocol ?? groupProtocolOf(ctx.workers.filter((w) => w.state === "running")) ?? "eager";
  return {
    now,
    generation: group.generation,
    protocol,
    leader: group.leader?.worker.name ?? null,
    workers,
    heldTasks: configured.filter((t) => !assigned.has(t)),
    delayDeadline: group.delayDeadline,
    tasks,
    counters: {
      rebalances: group.rebalances,
      eagerRebalances: group.eagerRebalances,
      ...ctx.ledger.totals(now),
      restarts,
    },
    dataFlow: { ...ctx.flow.groundTruth(now), stalled: sortTaskKeys(ctx.flow.stalled(now)), sink: null },
  };
}
